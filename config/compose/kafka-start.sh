#!/usr/bin/env bash
# Local trial only: starts one Kafka node of docker-compose.yml (the apache/kafka image runs it in place of its own
# launcher). Consumes the node's KAFKA_* environment, CLUSTER_ID, COMPOSE_SCRAM_USERS and secrets/<user>.password;
# produces /tmp/server.properties and, when the data volume is new, a formatted data directory.
#
# Why not the image's launcher: it formats the data directory without SCRAM credentials, and KRaft takes SCRAM
# credentials without an authenticated admin only at format time (kafka-storage.sh format --add-scram). The brokers
# authenticate to each other as `broker` and kafka-setup connects as `admin`, both SCRAM users, so they must exist
# before the first node starts. The services' users are created in the same step. On a volume already formatted,
# nothing is formatted again: change a password then with kafka-configs.sh --alter --entity-type users.
set -euo pipefail

secrets=/compose/secrets
config=/tmp/server.properties

# The server's properties are the KAFKA_* variables, renamed as the apache/kafka image renames them:
# KAFKA_FOO_BAR -> foo.bar, ___ -> -, __ -> _. The JVM's own variables are not properties.
: > "$config"
for var in $(compgen -e | grep '^KAFKA_' | sort); do
  case "$var" in
    KAFKA_OPTS | KAFKA_HEAP_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_GC_LOG_OPTS | KAFKA_LOG4J_OPTS \
      | KAFKA_JMX_OPTS | KAFKA_JMX_HOSTNAME | KAFKA_DEBUG | KAFKA_VERSION | KAFKA_LOG4J_ROOT_LOGLEVEL \
      | KAFKA_LOG4J_LOGGERS | KAFKA_TOOLS_LOG4J_LOGLEVEL) continue ;;
  esac
  key=${var#KAFKA_}
  key=${key,,}
  key=${key//_/.}
  key=${key//.../-}
  key=${key//../_}
  printf '%s=%s\n' "$key" "${!var}" >> "$config"
done

data=${KAFKA_LOG_DIRS:?KAFKA_LOG_DIRS names the data directory}
if [ ! -f "$data/meta.properties" ]; then
  scram=()
  for user in ${COMPOSE_SCRAM_USERS:?COMPOSE_SCRAM_USERS lists the SCRAM users to create}; do
    password=$(< "$secrets/$user.password")
    # --add-scram reads name=...,password=... inside brackets: a comma, bracket or quote would end the value.
    if [[ ! $password =~ ^[A-Za-z0-9._-]+$ ]]; then
      echo "$secrets/$user.password: use letters, digits, '.', '_' and '-' only" >&2
      exit 1
    fi
    scram+=(--add-scram "SCRAM-SHA-512=[name=$user,password=$password]")
  done
  echo "formatting $data with SCRAM-SHA-512 users: $COMPOSE_SCRAM_USERS"
  /opt/kafka/bin/kafka-storage.sh format --config "$config" --cluster-id "${CLUSTER_ID:?}" "${scram[@]}"
fi
exec /opt/kafka/bin/kafka-server-start.sh "$config"
