package dev.onejob.providers;

import java.util.concurrent.Flow;

/** The lines of a stream on their way to its reply, each one telling the call the provider is alive. */
record LiveLines(SseReply reply, ProviderCall call) implements Flow.Subscriber<String> {
    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        reply.onSubscribe(subscription);
    }

    @Override
    public void onNext(String line) {
        call.activity();
        reply.onNext(line);
    }

    @Override
    public void onError(Throwable throwable) {
        reply.onError(throwable);
    }

    @Override
    public void onComplete() {
        reply.onComplete();
    }
}
