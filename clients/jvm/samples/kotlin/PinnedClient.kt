// docs/ANDROID.md's PinnedClient in Kotlin (issue 39): compiled by `make test-jvm` with kotlinc -Werror
// -Xjsr305=strict against the published jar, and run against the quickstart's pin server and TLS server.
// Where the Java API may return nothing (JSR-305 @Nullable), Kotlin makes us say what then: `?.` and `?:`.

import dev.pinset.DocumentVerifier
import dev.pinset.PinSetOkHttp
import dev.pinset.PinSetStore
import dev.pinset.PinSetUpdater
import dev.pinset.PinStorage
import dev.pinset.PinningOptions
import dev.pinset.PinningTrustManager
import dev.pinset.TrustedKey
import java.io.File
import java.io.FileInputStream
import java.io.IOException
import java.security.KeyStore
import java.security.cert.CertificateFactory
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess
import okhttp3.OkHttpClient
import okhttp3.Request

fun main() {
    val server = System.getenv("PINSET_SERVER") ?: "http://127.0.0.1:8080"
    val port = System.getenv("PINNED_PORT") ?: "8443"
    val roots = System.getenv("TRUST_ROOTS_PEM") ?: "ca.pem"

    val signingKey = TrustedKey.fromPem(File("pinset-signing-key.pub.pem").readText())
    val store = PinSetStore(DocumentVerifier.builder().trustedKey(signingKey).build(), PinningOptions.builder().build())
    val updater = PinSetUpdater.builder(server, store)
        .hosts("localhost")
        .storage(PinStorage(File("pinset-cache-kotlin")))
        .build()
    updater.addListener { event -> println("event: ${event.kind()} ${event.host() ?: "(trust)"}") }
    updater.start()
    val fetched = updater.refreshAsync("localhost").get(30, TimeUnit.SECONDS)
    println("pin set: ${store.acceptedVersion("localhost")?.let { "localhost v${it.version()}" } ?: "none ($fetched)"}")
    println("version of other: ${store.pinSet("other")?.version() ?: "none"}")

    val trusted = KeyStore.getInstance(KeyStore.getDefaultType())
    trusted.load(null, null)
    FileInputStream(roots).use { trusted.setCertificateEntry("demo-ca", CertificateFactory.getInstance("X.509").generateCertificate(it)) }
    val trust = PinningTrustManager(PinningTrustManager.platformDefault(trusted), store)
    val client = PinSetOkHttp.configure(OkHttpClient.Builder(), trust).build()
    try {
        client.newCall(Request.Builder().url("https://localhost:$port/").build()).execute().use { response ->
            println("connected: HTTP ${response.code()}")
        }
    } catch (error: IOException) {
        println("refused: ${PinningTrustManager.PinningException.find(error)?.decision()?.kind() ?: error}")
        exitProcess(1)
    }
    exitProcess(0)
}
