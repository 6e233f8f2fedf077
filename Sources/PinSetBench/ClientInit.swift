import Crypto
import Foundation
import PinSetClient
import PinSetCore

/// Issue 38, Performance: `PinningClient.init` with 100 persisted sets and a bundled export of 100 hosts (what
/// runs at app launch). `PinSetBench client-init [rounds]` prints the median and the minimum in milliseconds.
enum ClientInit {
    static func run(rounds: Int) throws {
        let key = Curve25519.Signing.PrivateKey()
        let trusted = try TrustedKey(rawRepresentation: key.publicKey.rawRepresentation)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let storage = root.appendingPathComponent("storage")
        let pins = root.appendingPathComponent("export/pins")
        try FileManager.default.createDirectory(at: pins, withIntermediateDirectories: true)
        var hosts: [String] = []
        for index in 0..<100 {
            let saved = "saved\(index).example.com"
            let bundled = "bundled\(index).example.com"
            hosts += [saved, bundled]
            try PinStorage(directory: storage).save(try document(saved, key: key, kid: trusted.kid), for: saved)
            try Data(try document(bundled, key: key, kid: trusted.kid)).write(to: pins.appendingPathComponent(bundled))
        }
        let configuration = PinningClient.Configuration(
            server: URL(string: "https://pins.invalid")!, hosts: hosts, trustedKeys: [trusted],
            bundledExport: root.appendingPathComponent("export"), storageDirectory: storage,
            reportsPinFailures: false)
        var times: [Double] = []
        var cpu: [Double] = []
        var firstHost: [Double] = []
        var all: [Double] = []
        for _ in 0..<rounds {
            let started = ContinuousClock.now
            let cpuStarted = threadCPUMilliseconds()
            let client = try PinningClient(configuration: configuration, startsPolling: false)
            cpu.append(threadCPUMilliseconds() - cpuStarted)
            let elapsed = ContinuousClock.now - started
            times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            // What the first request of the launch adds: one host's documents read and checked.
            let firstStarted = threadCPUMilliseconds()
            guard client.trustManager.pinSet(for: "saved0.example.com") != nil else { fatalError("no set") }
            firstHost.append(threadCPUMilliseconds() - firstStarted)
            // The rest, which the first poll round does off the launch path: every document read and checked.
            let allStarted = threadCPUMilliseconds()
            guard client.hostsMissingSets.isEmpty else { fatalError("a set was not installed") }
            all.append(threadCPUMilliseconds() - allStarted)
        }
        func median(_ values: [Double]) -> String { String(format: "%.2f", values.sorted()[values.count / 2]) }
        print(
            "| PinningClient.init, 100 persisted + 100 bundled sets | median \(median(times)) ms | min \(String(format: "%.2f", times.min() ?? 0)) ms | CPU median \(median(cpu)) ms |"
        )
        print(
            "| then the first host needed (read + checked), CPU | median \(median(firstHost)) ms | the 199 others, CPU | median \(median(all)) ms |"
        )
    }

    static func document(_ host: String, key: Curve25519.Signing.PrivateKey, kid: String) throws -> [UInt8] {
        let set = PinSet(
            host: host, version: 3, issuedAt: Fixtures.now.addingTimeInterval(-60),
            expiresAt: Fixtures.now.addingTimeInterval(86_400),
            pins: [Fixtures.randomPin(.current), Fixtures.randomPin(.backup)])
        let protected = Base64URL.encode(Array(#"{"alg":"EdDSA","kid":"\#(kid)","typ":"pinset+jws"}"#.utf8))
        let payload = Base64URL.encode(set.encodedJSON())
        let signature = try key.signature(for: Array((protected + "." + payload).utf8))
        return Array(
            #"{"protected":"\#(protected)","payload":"\#(payload)","signature":"\#(Base64URL.encode(signature))"}"#.utf8
        )
    }

    /// The calling thread's CPU time (the initializer runs on it alone), so a loaded machine's waits do not count.
    static func threadCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
}
