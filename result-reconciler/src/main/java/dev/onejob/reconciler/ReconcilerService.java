package dev.onejob.reconciler;

import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.service.ServiceMain;
import dev.onejob.providers.ProviderClients;
import dev.onejob.providers.certify.CertificationRunner;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One result reconciler with what it needs from the files: the providers and contracts (for the failover gate),
 * the provider clients (for scheduled certification, {@code CERTIFY_INTERVAL}) and the {@link ResultReconciler}
 * itself. Run alone by {@link ReconcilerMain}, or inside {@code ./onejob dev}.
 */
public final class ReconcilerService implements ServiceMain.Service {
    private final ReconcilerConfig config;
    private final Database database;
    private final Map<String, String> env;
    private final Consumer<String> onDeadLoop;
    private ResultReconciler reconciler;
    private ProviderClients clients;
    private Providers providers;
    private Contracts contracts;

    /** {@code env} resolves the providers file's references and holds the API keys certification calls with. */
    public ReconcilerService(ReconcilerConfig config, Database database, Map<String, String> env,
                             Consumer<String> onDeadLoop) {
        this.config = config;
        this.database = database;
        this.env = env;
        this.onDeadLoop = onDeadLoop;
    }

    @Override
    public void start() {
        providers = Providers.load(config.providersFile(), env);
        contracts = Contracts.load(config.contractsDir());
        reconciler = new ResultReconciler(config, database,
                ResultReconciler.certified(database, contracts, providers, config.certificationMaxAge()), onDeadLoop);
        reconciler.start();
        clients = ProviderClients.create(ProviderClients.defaultHttpClient(), env);
        if (config.certifyInterval() != null) {
            reconciler.certifyEvery(config.certifyInterval(), certificationRunner());
        }
    }

    /** A runner over this service's clients and files, recording in its database. */
    public CertificationRunner certificationRunner() {
        return CertificationRunner.over(clients, new CertificationStore(database), providers, contracts);
    }

    public ResultReconciler reconciler() {
        return reconciler;
    }

    @Override
    public void close() {
        if (reconciler != null) {
            reconciler.close();
        }
        if (clients != null) {
            clients.close();
        }
    }
}
