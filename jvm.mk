# The JVM/Android client (issue 23): clients/jvm built offline with javac from Debian's packages (no Gradle, no
# Maven Central), its JUnit 5 tests (shared vectors, unit tests, end-to-end against a real `pinset serve` and
# openssl s_server) run with the JUnit console launcher, the Maven artifact
# published into a local repository (issue 39), and docs/ANDROID.md's quickstart built from it and run as written.
# Included by the Makefile; `make test` runs `test-jvm`.

APT_JVM      := openjdk-17-jdk-headless libokhttp-java libokio-java junit5 libapiguardian-java libopentest4j-java libbcprov-java openssl \
                libjsr305-java kotlin maven libmaven-compiler-plugin-java libmaven-jar-plugin-java \
                libmaven-resources-plugin-java libmaven-source-plugin-java libmaven-javadoc-plugin-java libsurefire-java \
                libmaven-install-plugin-java
JVM_OUT      := .build-jvm
JVM_LIBS     := /usr/share/java/bcprov.jar:/usr/share/java/okhttp.jar:/usr/share/java/okio.jar:/usr/share/java/jsr305.jar
JUNIT_API    := /usr/share/java/junit-jupiter-api.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/opentest4j.jar
JUNIT_RUN    := /usr/share/java/junit-platform-console-standalone.jar
# The library is compiled for Java 8 (what every Android Gradle Plugin's D8 takes, and what the Maven artifact ships);
# the tests use Java 17 and still call the API deprecated by issue 39, which stays for one release.
JAVAC_LIB    := javac --release 8 -encoding UTF-8 -Xlint:all,-path,-options -Werror
JAVAC        := javac --release 17 -encoding UTF-8 -Xlint:all,-path,-deprecation -Werror

JVM_REPO     := $(JVM_OUT)/maven-repo
# Offline Maven: Debian's repository is the only remote (clients/jvm/debian-settings.xml), the local repository is
# ours; the Central coordinates of jsr305 and bcprov are swapped for Debian's at build time only (see pom.xml).
MVN          := mvn -B -q -s clients/jvm/debian-settings.xml -Dmaven.repo.local=$(CURDIR)/$(JVM_REPO)

.PHONY: jvm-deps jvm-build jvm-publish-local test-jvm quickstart-jvm bench-jvm

jvm-deps:
	$(call apt_install,$(APT_JVM))

# The library jar: .build-jvm/pinset-jvm.jar (classes compiled against OkHttp and bcprov, neither bundled).
jvm-build: jvm-deps
	@rm -rf $(JVM_OUT)/classes && mkdir -p $(JVM_OUT)/classes
	$(JAVAC_LIB) -cp $(JVM_LIBS) -d $(JVM_OUT)/classes $$(find clients/jvm/src/main/java -name '*.java' | sort)
	jar --create --file $(JVM_OUT)/pinset-jvm.jar -C $(JVM_OUT)/classes .

# The Maven artifact (issue 39): dev.pinset:pinset-jvm:0.1.0 (jar of Java 8 classes, sources jar, javadoc jar with
# doclint, POM with OkHttp, BouncyCastle and JSR-305 optional) installed into the local repository .build-jvm/maven-repo.
jvm-publish-local: jvm-deps
	$(MVN) -f clients/jvm/pom.xml -DbuildDirectory=$(CURDIR)/$(JVM_OUT)/maven-build \
		-Djsr305.version=debian -Dbcprov.artifactId=bcprov -Dbcprov.version=debian install
	@ls $(JVM_REPO)/dev/pinset/pinset-jvm/0.1.0/pinset-jvm-0.1.0.jar $(JVM_REPO)/dev/pinset/pinset-jvm/0.1.0/pinset-jvm-0.1.0-sources.jar \
		$(JVM_REPO)/dev/pinset/pinset-jvm/0.1.0/pinset-jvm-0.1.0-javadoc.jar $(JVM_REPO)/dev/pinset/pinset-jvm/0.1.0/pinset-jvm-0.1.0.pom

test-jvm: jvm-build
	@rm -rf $(JVM_OUT)/test-classes && mkdir -p $(JVM_OUT)/test-classes
	$(JAVAC) -cp $(JVM_OUT)/classes:$(JVM_LIBS):$(JUNIT_API) -d $(JVM_OUT)/test-classes \
		$$(find clients/jvm/src/test/java -name '*.java' | sort)
	$(SWIFT) build --product pinset
	java -Djava.net.preferIPv4Stack=true -Dpinset.vectors=Tests/Vectors -Dpinset.binary=$$($(SWIFT) build --show-bin-path)/pinset \
		-jar $(JUNIT_RUN) --disable-banner --details=summary --fail-if-no-tests \
		-cp $(JVM_OUT)/classes:$(JVM_OUT)/test-classes:$(JVM_LIBS) --scan-classpath $(JVM_OUT)/test-classes
	$(MAKE) quickstart-jvm

# docs/ANDROID.md's quickstart, copied verbatim, built by a consumer Maven project from the published artifact and run
# against a real pin server and TLS server; the Kotlin sample compiled with kotlinc and run (scripts/jvm_quickstart_test.sh).
quickstart-jvm: jvm-publish-local
	$(SWIFT) build --product pinset
	PINSET=$$($(SWIFT) build --show-bin-path)/pinset bash scripts/jvm_quickstart_test.sh

# JVM verification and warm-evaluation cost against a raw JDK Ed25519 verify and one SHA-256 (as B8/B9).
bench-jvm: jvm-build
	bash bench/jvm.sh
