// Gradle build (Kotlin DSL) of the pinset JVM/Android client, for those who build the module from source or publish
// it with Gradle (issues 23, 39). The same artifact as pom.xml: dev.pinset:pinset-jvm, Java 8 class files, sources and
// javadoc jars, OkHttp, BouncyCastle and JSR-305 compile-only (optional for consumers).
//
// NOT RUN HERE: the machines this project is built on reach no Gradle plugin portal or Maven Central. `make test-jvm`
// (jvm.mk) builds the same sources with javac and with Debian's Maven (pom.xml, `make jvm-publish-local`) instead.
//
// Conventional on purpose: no `repositories` here (declare them in settings.gradle.kts; Android Studio's template sets
// FAIL_ON_PROJECT_REPOS), no toolchain pin (any JDK 11+ compiles `--release 8`), no -Werror imposed on consumers,
// and the tests find the shared vectors, the sources and the Swift `pinset` binary from this module's own folder.
//
// From an Android app, include the module (settings.gradle.kts: include(":pinset");
// project(":pinset").projectDir = file("path/to/pinset/clients/jvm")) and depend on implementation(project(":pinset")),
// or publish it (`gradle publishToMavenLocal`) and depend on "dev.pinset:pinset-jvm:0.1.0" (docs/ANDROID.md).

plugins {
    `java-library`
    `maven-publish`
}

group = "dev.pinset"
version = "0.1.0"
description = "Signed, rotating TLS pin sets from a pinset server, enforced on every handshake"

java {
    withSourcesJar()
    withJavadocJar()
}

tasks.withType<JavaCompile>().configureEach {
    options.release.set(8)
    options.encoding = "UTF-8"
    options.compilerArgs.add("-Xlint:all,-path,-options")
}

tasks.named<JavaCompile>("compileTestJava") {
    options.release.set(17) // the tests use Java 17 APIs; the library stays at 8
}

tasks.withType<Javadoc>().configureEach {
    (options as StandardJavadocDocletOptions).apply {
        addStringOption("Xdoclint:all,-missing", "-quiet")
        encoding = "UTF-8"
    }
    exclude("dev/pinset/internal/**")
}

dependencies {
    // The app brings its own OkHttp (3.12+ or 4.x); only PinSetOkHttp refers to it.
    compileOnly("com.squareup.okhttp3:okhttp:3.13.1")
    // Only BouncyCastleEd25519Verifier refers to it: Android below API 33 adds it, others need not.
    compileOnly("org.bouncycastle:bcprov-jdk18on:1.72")
    // @Nullable / @ParametersAreNonnullByDefault, read from the class files by javac and kotlinc.
    compileOnly("com.google.code.findbugs:jsr305:3.0.2")

    testImplementation("com.squareup.okhttp3:okhttp:3.13.1")
    testImplementation("org.bouncycastle:bcprov-jdk18on:1.72")
    testImplementation("com.google.code.findbugs:jsr305:3.0.2")
    testImplementation("org.junit.jupiter:junit-jupiter:5.9.2")
    testRuntimeOnly("org.junit.platform:junit-platform-launcher")
}

tasks.test {
    useJUnitPlatform()
    // Found from this module's folder (not the including build's root): the shared vectors, the sources the API-24
    // scan reads, and the `pinset` binary of the Swift build (`swift build --product pinset` at the repository root).
    systemProperty("pinset.vectors", projectDir.resolve("../../Tests/Vectors").path)
    systemProperty("pinset.sources", projectDir.resolve("src/main/java/dev/pinset").path)
    systemProperty("pinset.binary", projectDir.resolve("../../.build/debug/pinset").path)
    systemProperty("java.net.preferIPv4Stack", "true")
}

publishing {
    publications {
        create<MavenPublication>("maven") {
            artifactId = "pinset-jvm"
            from(components["java"])
            pom {
                name.set("pinset JVM and Android client")
                description.set(project.description)
                // No url, licenses or scm yet: the project has not chosen a licence or a public home (Maven
                // Central needs all three).
            }
        }
    }
}
