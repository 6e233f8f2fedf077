// Gradle build (Kotlin DSL) for consumers of the pinset JVM/Android client (issue 23).
//
// NOT RUN HERE: the machines this project is built on reach no Maven repository, so `make test-jvm` (jvm.mk) builds
// and tests the same sources with javac and Debian's OkHttp, bcprov and JUnit 5 packages instead. The versions
// below are the ones those packages correspond to or newer; check them before publishing.
//
// Android apps: include this folder as a module (settings.gradle.kts: include(":pinset"); project(":pinset")
// .projectDir = file("path/to/pinset/clients/jvm")) and depend on it with implementation(project(":pinset")).
// Android's D8 desugars the Java 17 class files; the library calls nothing Android API 24 lacks (UnitTest checks the
// sources), and needs no ProGuard/R8 rules (no reflection).

plugins {
    `java-library`
}

group = "dev.pinset"
version = "0.1.0"

java {
    toolchain { languageVersion.set(JavaLanguageVersion.of(17)) }
    withSourcesJar()
}

tasks.withType<JavaCompile>().configureEach {
    options.release.set(17)
    options.compilerArgs.addAll(listOf("-Xlint:all", "-Werror"))
}

repositories {
    mavenCentral()
}

dependencies {
    // The app brings its own OkHttp (3.12+ or 4.x); only PinSetOkHttp refers to it.
    compileOnly("com.squareup.okhttp3:okhttp:4.12.0")
    // Only BouncyCastleEd25519Verifier refers to it: Android below API 33 adds it, others need not.
    compileOnly("org.bouncycastle:bcprov-jdk18on:1.78.1")

    testImplementation("com.squareup.okhttp3:okhttp:4.12.0")
    testImplementation("org.bouncycastle:bcprov-jdk18on:1.78.1")
    testImplementation("org.junit.jupiter:junit-jupiter:5.10.2")
    testRuntimeOnly("org.junit.platform:junit-platform-launcher")
}

tasks.test {
    useJUnitPlatform()
    // The shared vectors and the `pinset` binary of the Swift build, as jvm.mk passes them.
    systemProperty("pinset.vectors", rootDir.resolve("../../Tests/Vectors").path)
    systemProperty("pinset.sources", projectDir.resolve("src/main/java/dev/pinset").path)
    systemProperty("pinset.binary", rootDir.resolve("../../.build/debug/pinset").path)
}
