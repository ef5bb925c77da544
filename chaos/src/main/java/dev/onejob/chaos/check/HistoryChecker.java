package dev.onejob.chaos.check;

/**
 * Proves onejob's invariants from what a chaos run recorded, in the spirit of Jepsen: the clients' history (where
 * an unknown outcome may or may not have happened), the ledger's rows, the topics' records and the simulators'
 * ledgers; never from a service's own counters. Consumes a {@link RunRecord}; produces a {@link CheckReport} with
 * the run's figures and every anomaly found. A pure function: no I/O, so each check is tested on hand-made records.
 */
public final class HistoryChecker {
    private HistoryChecker() {
    }

    public static CheckReport check(RunRecord run) {
        Submissions submissions = Submissions.of(run.ops());
        CheckReport.Builder report = new CheckReport.Builder();
        RunFigures.add(run, submissions, report);
        IntentChecks.check(run, submissions, report);
        PoisonChecks.check(run, report);
        ResultChecks.check(run, report);
        AttemptChecks.check(run, report);
        RetryChecks.check(run, report);
        BillingChecks.check(run, report);
        // A record no check could read might have been the one that broke an invariant.
        for (String unreadable : run.unreadable()) {
            String[] whereAndWhy = unreadable.split(": ", 2);
            report.anomaly(AnomalyKind.UNREADABLE_RECORD, whereAndWhy[0],
                    whereAndWhy.length > 1 ? whereAndWhy[1] : unreadable);
        }
        report.figure(RunFigures.ANOMALIES, report.anomalyCount());
        return report.build();
    }
}
