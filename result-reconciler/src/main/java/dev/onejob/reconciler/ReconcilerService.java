package dev.onejob.reconciler;

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.service.ServiceMain;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One result reconciler with what it needs from the files: the providers and contracts (for the failover gate)
 * and the {@link ResultReconciler} itself, which asks the workers to re-certify on {@code CERTIFY_INTERVAL}; it
 * holds no provider key. Run alone by {@link ReconcilerMain}, or inside {@code ./onejob dev}.
 */
public final class ReconcilerService implements ServiceMain.Service {
    private final ReconcilerConfig config;
    private final Database database;
    private final Map<String, String> env;
    private final Consumer<String> onDeadLoop;
    private ResultReconciler reconciler;

    /** {@code env} resolves the providers file's references. */
    public ReconcilerService(ReconcilerConfig config, Database database, Map<String, String> env,
                             Consumer<String> onDeadLoop) {
        this.config = config;
        this.database = database;
        this.env = env;
        this.onDeadLoop = onDeadLoop;
    }

    @Override
    public void start() {
        Providers providers = Providers.load(config.providersFile(), env);
        Contracts contracts = Contracts.load(config.contractsDir());
        reconciler = new ResultReconciler(config, database,
                ResultReconciler.certified(database, contracts, providers, config.certificationMaxAge()), onDeadLoop);
        reconciler.start();
        if (config.certifyInterval() != null) {
            reconciler.certifyEvery(config.certifyInterval());
        }
    }

    public ResultReconciler reconciler() {
        return reconciler;
    }

    @Override
    public void close() {
        if (reconciler != null) {
            reconciler.close();
        }
    }
}
