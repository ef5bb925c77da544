package dev.onejob.core.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * HTTPS from PEM files, as certificate authorities and cert-manager hand them out: the certificate chain (leaf
 * first) and an unencrypted PKCS#8 private key ({@code -----BEGIN PRIVATE KEY-----}; RSA, EC or Ed25519).
 */
public record PemTls(Path certificateChain, Path privateKey) {
    private static final Pattern PKCS8 = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final char[] PASSWORD = "onejob-in-memory".toCharArray();

    /** Reads both files now: a missing file or a key in another format fails at start, with the reason. */
    public SslContextFactory.Server sslContextFactory() {
        SslContextFactory.Server factory = new SslContextFactory.Server();
        factory.setKeyStore(keyStore());
        factory.setKeyStorePassword(new String(PASSWORD));
        factory.setKeyManagerPassword(new String(PASSWORD));
        factory.setIncludeProtocols("TLSv1.3", "TLSv1.2");
        return factory;
    }

    KeyStore keyStore() {
        try {
            List<? extends Certificate> chain = List.copyOf(CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(certificateChain))));
            if (chain.isEmpty()) {
                throw new IllegalArgumentException(certificateChain + " holds no PEM certificate");
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("onejob", key(), PASSWORD, chain.toArray(Certificate[]::new));
            return store;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the TLS files: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the TLS certificate or key is not usable: " + e.getMessage(), e);
        }
    }

    private PrivateKey key() throws IOException, GeneralSecurityException {
        String pem = Files.readString(privateKey, StandardCharsets.US_ASCII);
        Matcher m = PKCS8.matcher(pem);
        if (!m.find()) {
            throw new IllegalArgumentException(privateKey + " holds no unencrypted PKCS#8 key (-----BEGIN PRIVATE "
                    + "KEY-----); convert one with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.pk8.pem");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1)));
        GeneralSecurityException last = null;
        for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException(privateKey + " is not an RSA, EC or Ed25519 key", last);
    }
}
