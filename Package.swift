// swift-tools-version:6.1
import PackageDescription

// Layers, bottom up:
//   C system libraries      CMicroHTTPD, COpenSSL, CPKCS11 (headers only: the module is dlopen'ed), CPrefetch (a hint)
//   one lock type           Locking                     (pthread mutex; no Synchronization.Mutex: iOS 18+)
//   one error shape         CodedErrors                 (CodedError<Code>: a stable code and a detail; every module)
//   thin Swift wrappers     MicroHTTPD, OpenSSLCrypto, PKCS11   (no C type leaves them)
//   read cache              ReadCache                   (documents served from memory over MicroHTTPD's responses)
//   wire format             PinSetCore                  (Foundation only; shared by server and client)
//   transparency log        TransparencyLog             (C2SP tlog formats, RFC 6962 proofs; crypto injected)
//   admin API types         PinSetAdminAPI              (the admin answers and their JSON coders; server and CLI)
//   TLS probes              PinSetProbe                 (live hosts' chains via OpenSSLCrypto; server and CLI)
//   signing keys            PinSetSigning               (PEM or PKCS#11 key behind DocumentSigner; server and CLI)
//   storage                 PinSetStorage               (SQLite tables, migrations, backups, checks; server and CLI)
//   log's server side       PinSetLogServer             (appends, checkpoints, tiles, proofs, witnesses asked, forks)
//   witness                 PinSetWitness               (`pinset witness`: cosigns checkpoints; no server inside)
//   server domain           PinSetServer                (service, read path, routes, monitor, reports: `pinset serve`)
//   (no package target is `public` unless it is a product: targets share declarations with `package` access)
//   verification rules      PinSetRules                 (PROTOCOL §5/§6 checks, crypto injected; client and CLI)
//   rules' OpenSSL crypto   PinSetOpenSSL               (OpenSSLTrustCrypto; server and CLI)
//   client                  PinSetClient, PinSetNIO     (no libmicrohttpd, no OpenSSL)
//   executable              pinset                      (TLS probes via OpenSSLCrypto: no NIO, no swift-nio-ssl)
//
// Traits (SE-0450): an app that depends on this package for PinSetClient alone turns the defaults off
// (`.package(url: …, from: …, traits: [])`) and fetches only swift-crypto, swift-certificates and swift-asn1
// (scripts/consumer_test.sh proves it). Every use of another package is guarded by one of these traits, both on by
// default, so this package's own builds (the server, the CLI, the tests, the Dockerfile) are unchanged.
let serverTrait: Set<String> = ["Server"]  // GRDB, swift-log, swift-argument-parser: the server and the CLI
let nioTrait: Set<String> = ["NIO"]  // swift-nio, swift-nio-ssl: PinSetNIO, the tests' TLS servers
let package = Package(
    name: "pinset",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .executable(name: "pinset", targets: ["pinset"]),
        .library(name: "PinSetClient", targets: ["PinSetClient"]),
        .library(name: "PinSetNIO", targets: ["PinSetNIO"]),
    ],
    traits: [
        .trait(name: "Server", description: "The pinset server and CLI: GRDB, swift-log, swift-argument-parser."),
        .trait(name: "NIO", description: "PinSetNIO, the pinned swift-nio client for Linux services."),
        .default(enabledTraits: ["Server", "NIO"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // MARK: C libraries
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // PKCS#11 types and constants from p11-kit's header; nothing is linked (the operator's module is dlopen'ed).
        .systemLibrary(name: "CPKCS11", providers: [.apt(["libp11-kit-dev"])]),
        // A header only, no library: __builtin_prefetch, which Swift cannot call (the read cache's cold lookups).
        .systemLibrary(name: "CPrefetch"),

        // MARK: The one lock type (works on iOS 16 / macOS 13, where Synchronization.Mutex does not exist)
        .target(name: "Locking"),

        // MARK: The one error shape: CodedError<Code>, each module naming its codes (GRDB's DatabaseError pattern)
        .target(name: "CodedErrors"),

        // MARK: Thin wrappers
        .target(name: "MicroHTTPD", dependencies: ["CMicroHTTPD", "Locking"]),
        .target(name: "OpenSSLCrypto", dependencies: ["COpenSSL", "CodedErrors"]),
        .target(name: "PKCS11", dependencies: ["CPKCS11", "Locking"]),

        // MARK: Read cache: documents served from memory (the keyed table, the bounded response cache), above the
        // HTTP wrapper: a commit publishes forward into it; MicroHTTPD only wraps libmicrohttpd.
        .target(name: "ReadCache", dependencies: ["MicroHTTPD", "Locking", "CPrefetch"]),

        // MARK: Wire format
        .target(name: "PinSetCore", dependencies: ["CodedErrors"]),

        // MARK: Transparency log (PROTOCOL §7): the C2SP tlog-* formats and RFC 6962 proofs, SHA-256/Ed25519
        // injected through PinSetCore's TrustCrypto, so the server and the client share one implementation.
        .target(name: "TransparencyLog", dependencies: ["PinSetCore", "CodedErrors"]),

        // MARK: TrustCrypto over OpenSSL: how the server and the CLI run the shared verification rules
        .target(name: "PinSetOpenSSL", dependencies: ["OpenSSLCrypto", "PinSetCore"]),

        // MARK: Admin API types, shared by the server and the CLI
        .target(name: "PinSetAdminAPI", dependencies: ["PinSetCore"]),

        // MARK: TLS probes of live hosts: the pre-flight check and the monitor (server), `pinset check` (CLI)
        .target(name: "PinSetProbe", dependencies: ["OpenSSLCrypto", "PinSetAdminAPI", "PinSetCore", "Locking"]),

        // MARK: Signing keys: a PEM file or a key on a PKCS#11 token behind one DocumentSigner (server and CLI)
        .target(
            name: "PinSetSigning",
            dependencies: [
                "OpenSSLCrypto", "PKCS11", "PinSetCore", "PinSetOpenSSL", "CodedErrors",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: serverTrait)),
            ]
        ),

        // MARK: Storage: the SQLite database, its tables and migrations, backups and checks (server and CLI)
        .target(
            name: "PinSetStorage",
            dependencies: [
                "OpenSSLCrypto", "PinSetCore", "PinSetAdminAPI", "Locking",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: serverTrait)),
                // HostRecords.forEachDocument reads the start-up load's columns straight from SQLite's statement.
                .product(name: "GRDBSQLite", package: "GRDB.swift", condition: .when(traits: serverTrait)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: serverTrait)),
            ]
        ),

        // MARK: Witness (`pinset witness`): cosigns a log's checkpoints (C2SP tlog-witness) over MicroHTTPD
        .target(
            name: "PinSetWitness",
            dependencies: [
                "MicroHTTPD", "PinSetCore", "TransparencyLog",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: serverTrait)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: serverTrait)),
            ]
        ),

        // MARK: The log's server side (PROTOCOL §7): appends in the write's transaction, signs checkpoints, serves
        // tiles and proofs, asks witnesses, records forks
        .target(
            name: "PinSetLogServer",
            dependencies: [
                "Locking", "MicroHTTPD", "OpenSSLCrypto", "PinSetAdminAPI", "PinSetCore", "PinSetOpenSSL",
                "PinSetSigning", "PinSetStorage", "TransparencyLog", "ReadCache",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: serverTrait)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: serverTrait)),
            ]
        ),

        // MARK: Server domain
        .target(
            name: "PinSetServer",
            dependencies: [
                "PinSetOpenSSL", "PinSetSigning", "PinSetStorage", "PinSetLogServer",
                "MicroHTTPD", "OpenSSLCrypto", "PinSetCore", "PinSetAdminAPI", "PinSetProbe", "Locking",
                "TransparencyLog", "ReadCache", "CodedErrors",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: serverTrait)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: serverTrait)),
            ]
        ),

        // MARK: Verification rules: the client's document and trust checks with SHA-256/Ed25519 injected, so the
        // CLI runs them over OpenSSL and the `pinset` executable links no swift-crypto (issue 22 item 4).
        .target(name: "PinSetRules", dependencies: ["PinSetCore", "CodedErrors", "Locking"]),

        // MARK: Client (embedded in apps: no libmicrohttpd, no OpenSSL)
        .target(
            name: "PinSetClient",
            dependencies: [
                "PinSetRules", "PinSetCore", "Locking", "TransparencyLog",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "PinSetNIO",
            dependencies: [
                "PinSetClient", "Locking",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: nioTrait)),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: nioTrait)),
            ]
        ),

        // MARK: Executable
        .executableTarget(
            name: "pinset",
            dependencies: [
                // No NIO / swift-nio-ssl: TLS probing goes through OpenSSLCrypto (issue 17 item 13). No swift-crypto:
                // documents are checked by PinSetRules over OpenSSL (issue 22 item 4).
                "PinSetServer", "PinSetStorage", "PinSetLogServer", "PinSetWitness", "PinSetAdminAPI", "PinSetProbe",
                "PinSetRules", "PinSetCore", "OpenSSLCrypto", "PKCS11", "Locking", "MicroHTTPD", "TransparencyLog",
                "PinSetOpenSSL", "PinSetSigning",
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: serverTrait)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: serverTrait)),
            ]
        ),

        // MARK: Client micro-benchmarks (issue 5, B8/B9): run with bench/client.sh (release)
        .executableTarget(
            name: "PinSetBench",
            dependencies: [
                "PinSetClient", "PinSetCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),

        // MARK: Parser fuzzing (issue 6): one harness, two engines — see Makefile targets fuzz-quick and fuzz
        .target(
            name: "PinSetFuzzing",
            dependencies: [
                "PinSetOpenSSL",
                "PinSetServer", "PinSetStorage", "PinSetAdminAPI", "PinSetClient", "PinSetCore", "OpenSSLCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A header only: libFuzzer's driver, which the -DFUZZING build calls from its own entry point.
        .systemLibrary(name: "CLibFuzzer"),
        .executableTarget(name: "PinSetFuzz", dependencies: ["PinSetFuzzing", "PinSetCore", "CLibFuzzer"]),

        // MARK: Tests
        // What every test target shares: the process runner, the test PKI, the one in-process pin server, the one
        // HTTP client and raw connection, the one TLS test host.
        .target(
            name: "TestSupport",
            dependencies: [
                "PinSetClient", "PinSetServer", "PinSetStorage", "PinSetProbe", "MicroHTTPD",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: nioTrait)),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: nioTrait)),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "MicroHTTPDTests", dependencies: ["MicroHTTPD", "TestSupport"]),
        .testTarget(name: "ReadCacheTests", dependencies: ["ReadCache", "MicroHTTPD", "TestSupport"]),
        .testTarget(name: "OpenSSLCryptoTests", dependencies: ["OpenSSLCrypto", "TestSupport"]),
        .testTarget(name: "PinSetCoreTests", dependencies: ["PinSetCore", "TestSupport"]),
        .testTarget(
            name: "TransparencyLogTests",
            dependencies: [
                "PinSetOpenSSL",
                "TransparencyLog", "PinSetCore", "PinSetServer", "PinSetStorage", "PinSetLogServer", "PinSetWitness",
                "OpenSSLCrypto", "PinSetClient", "TestSupport", "ReadCache",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: serverTrait)),
            ]
        ),
        .testTarget(
            name: "PinSetServerTests",
            dependencies: [
                "PinSetOpenSSL",
                "PinSetServer", "PinSetStorage", "PinSetLogServer", "PinSetAdminAPI", "PinSetProbe", "PinSetCore",
                "MicroHTTPD", "OpenSSLCrypto", "Locking", "ReadCache", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: serverTrait)),
            ]),
        .testTarget(
            name: "PinSetClientTests",
            dependencies: [
                "TestSupport",
                "PinSetClient", "PinSetCore", "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "PinSetNIOTests",
            dependencies: [
                "TestSupport",
                "PinSetNIO", "PinSetClient", "PinSetCore",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: nioTrait)),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "CLITests", dependencies: ["PinSetOpenSSL", "PinSetCore", "PinSetClient", "PKCS11", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "PinSetOpenSSL",
                "TestSupport",
                "PinSetServer", "PinSetStorage", "PinSetLogServer", "PinSetClient", "PinSetNIO", "PinSetCore",
                "MicroHTTPD", "PinSetFuzzing", "Locking", "OpenSSLCrypto",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: nioTrait)),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: nioTrait)),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["FuzzRegressions"]
        ),
    ]
)
