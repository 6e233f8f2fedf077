import Foundation
import Locking
import PinSetClient
import PinSetCore
import TestSupport
import Testing

@testable import PinSetClient

/// The one object an app holds (issue 38 item 1): synchronous load, self-retention, triggered refreshes, ready,
/// per-caller events and the status.
@Suite struct PinningClientTests {
    let signer = TestSigner()
    let server = InTestServer()
    let chain = testChain.map(\.der)

    func configuration(
        hosts: [String] = ["example.com"], storage: URL? = nil, bundle: URL? = nil, triggered: TimeInterval = 30
    ) -> PinningClient.Configuration {
        PinningClient.Configuration(
            server: URL(string: "https://pins.test")!, hosts: hosts, trustedKeys: [signer.trustedKey],
            bundledExport: bundle, storageDirectory: storage, triggeredRefreshInterval: triggered,
            reportsPinFailures: false)
    }

    func client(_ configuration: PinningClient.Configuration, startsPolling: Bool = true) throws -> PinningClient {
        try PinningClient(
            configuration: configuration, transport: server, clock: { testNow }, startsPolling: startsPolling)
    }

    /// Waits (suspending, never blocking a thread) until `condition` holds or `seconds` pass.
    func eventually(_ seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    func requests(_ host: String) -> Int { server.requests.withLock { $0.filter { $0.path == "/pins/\(host)" }.count } }

    @Test func theInitializerLoadsPersistedAndBundledSetsSynchronously() async throws {
        let storage = try makeTemporaryDirectory()
        try PinStorage(directory: storage).save(
            signer.sign(makeSet(host: "saved.example", pins: [.spki(testChain[0]), randomPin()])), for: "saved.example")
        let bundle = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(
            at: bundle.appendingPathComponent("pins"), withIntermediateDirectories: true)
        try Data(signer.sign(makeSet(host: "bundled.example", pins: [.spki(testChain[1]), randomPin()]))).write(
            to: bundle.appendingPathComponent("pins/bundled.example"))
        // An older bundled copy of the persisted host changes nothing.
        try Data(signer.sign(makeSet(host: "saved.example", version: 2))).write(
            to: bundle.appendingPathComponent("pins/saved.example"))

        let pinning = try client(
            configuration(hosts: ["saved.example", "bundled.example"], storage: storage, bundle: bundle),
            startsPolling: false)
        // No await between the initializer and the first handshake: both hosts are pinned already.
        #expect(pinning.hostsMissingSets.isEmpty)
        #expect(pinning.trustManager.evaluate(chain: chain, host: "saved.example", now: testNow).allowsConnection)
        #expect(pinning.trustManager.evaluate(chain: chain, host: "bundled.example", now: testNow).allowsConnection)
        #expect(pinning.trustManager.pinSet(for: "saved.example")?.version == 5)
        #expect(pinning.status(for: "saved.example").freshness == .fresh(expiresAt: testNow.addingTimeInterval(86_400)))
    }

    @Test func aConfigurationWithoutKeysIsRefused() {
        #expect(throws: PinningClient.ConfigurationError.self) {
            try PinningClient(
                configuration: .init(server: URL(string: "https://pins.test")!, hosts: ["a.example"]),
                transport: server, startsPolling: false)
        }
    }

    @Test func itKeepsItselfAliveWhileRunningAndGoesAfterStop() async throws {
        server.serve("example.com", signer.sign(makeSet(pins: [.spki(testChain[0]), randomPin()])))
        weak var weakClient: PinningClient?
        do {
            let pinning = try client(configuration())
            weakClient = pinning
        }
        // Nobody holds it, yet it runs: it polls and installs the set.
        #expect(weakClient != nil)
        #expect(await eventually { weakClient?.trustManager.pinSet(for: "example.com") != nil })
        #expect(weakClient?.isRunning == true)
        await weakClient?.stop()
        #expect(await eventually { weakClient == nil })
    }

    @Test func aRefusalForAMissingSetFetchesItRateLimited() async throws {
        // Not polling: every fetch here is one the refusals started.
        let pinning = try client(configuration(hosts: ["example.com", "late.example"]), startsPolling: false)
        server.serve("late.example", signer.sign(makeSet(host: "late.example", pins: [.spki(testChain[0])])))
        #expect(
            pinning.trustManager.evaluate(chain: chain, host: "late.example", now: testNow)
                == .setMissing(host: "late.example", allowed: false))
        #expect(await eventually { pinning.trustManager.pinSet(for: "late.example") != nil })
        #expect(pinning.trustManager.evaluate(chain: chain, host: "late.example", now: testNow).allowsConnection)
        #expect(requests("late.example") == 1)
        // Refusals in a burst start one fetch per interval, not one each.
        for _ in 0..<20 { _ = pinning.trustManager.evaluate(chain: chain, host: "example.com", now: testNow) }
        #expect(await eventually { requests("example.com") == 1 })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(requests("example.com") == 1)
        // After stop, nothing is triggered.
        await pinning.stop()
        #expect(pinning.refreshTriggered(hosts: ["other.example"]).isEmpty)
    }

    @Test func theForegroundAndTheNetworkRefreshRateLimited() async throws {
        server.serve("example.com", signer.sign(makeSet(pins: [.spki(testChain[0])])))
        let pinning = try client(configuration(), startsPolling: false)
        pinning.applicationWillEnterForeground()
        pinning.networkBecameAvailable()
        pinning.applicationWillEnterForeground()
        #expect(await eventually { requests("example.com") == 1 })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(requests("example.com") == 1)
        #expect(pinning.refreshTriggered(hosts: ["example.com"]).isEmpty)
        // Once the interval has passed, the next trigger fetches again.
        let quick = try client(configuration(triggered: 0), startsPolling: false)
        quick.applicationWillEnterForeground()
        #expect(await eventually { requests("example.com") == 2 })
        quick.networkBecameAvailable()
        #expect(await eventually { requests("example.com") == 3 })
    }

    @Test func readyWaitsForTheFirstSetAndTimesOut() async throws {
        server.serve("example.com", signer.sign(makeSet(pins: [.spki(testChain[0])])))
        let pinning = try client(configuration(), startsPolling: false)
        #expect(await pinning.ready(timeout: .seconds(30)))
        #expect(await pinning.ready(timeout: .seconds(0)))  // at once when every host has a set

        let down = InTestServer()
        down.failTransport.withLock { $0 = true }
        let offline = try PinningClient(
            configuration: configuration(hosts: ["nothing.example"]), transport: down, clock: { testNow },
            startsPolling: false)
        let started = ContinuousClock.now
        #expect(await offline.ready(timeout: .milliseconds(500)) == false)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(offline.hostsMissingSets == ["nothing.example"])
    }

    @Test func everyCallerGetsEveryEvent() async throws {
        server.serve("example.com", signer.sign(makeSet(pins: [.spki(testChain[0])])))
        let pinning = try client(configuration(), startsPolling: false)
        let first = pinning.events()
        let second = pinning.events()
        await pinning.refreshNow()
        await pinning.stop()
        var seen: [[String]] = []
        for stream in [first, second] {
            var names: [String] = []
            for await event in stream { names.append("\(event)") }
            seen.append(names)
        }
        #expect(seen[0].count == 1 && seen[0] == seen[1])
        #expect(seen[0].first?.hasPrefix("updated") == true)
    }

    @Test func theStatusFollowsTheEvents() async throws {
        let pinning = try client(configuration(), startsPolling: false)
        #expect(pinning.status(for: "example.com").freshness == .missing)
        server.serve("example.com", signer.sign(makeSet(version: 7, pins: [.spki(testChain[0])])))
        await pinning.refreshNow()
        var status = pinning.status(for: "example.com")
        #expect(status.version == 7)
        #expect(status.lastSuccess == testNow)
        #expect(status.lastFailure == nil)
        server.serve("example.com", TestSigner().sign(makeSet(version: 8)))
        await pinning.refreshNow()
        status = pinning.status(for: "example.com")
        #expect(status.version == 7)
        #expect(status.lastFailure?.contains("unknownKey") == true)
        #expect(pinning.statuses.map(\.host) == ["example.com"])
    }

    /// `withResource` runs under the lock `rotate()` takes: nothing it starts meets a retired resource (a task
    /// created in an invalidated `URLSession` raises, which `PinnedSession.data(for:)` relies on this to avoid).
    @Test(.blocking) func nothingStartsOnARetiredResource() {
        final class Box: Sendable {
            let retired = Locked(false)
        }
        let resource = PinnedResource(make: { Box() }, retire: { $0.retired.withLock { $0 = true } })
        let violations = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            for _ in 0..<(worker == 0 ? 300 : 3_000) {
                if worker == 0 {
                    resource.rotate()
                } else if resource.withResource({ $0.retired.withLock { $0 } }) {
                    violations.withLock { $0 += 1 }
                }
            }
        }
        #expect(resource.generation == 300)
        #expect(violations.withLock { $0 } == 0)
    }

    @Test func pinnedResourcesAreReplacedWhenASetTightens() async throws {
        let pinning = try client(configuration(), startsPolling: false)
        let retired = Locked<[Int]>([])
        let counter = Locked(0)
        let resource = pinning.pinnedResource(
            make: {
                counter.withLock {
                    $0 += 1; return $0
                }
            }, retire: { old in retired.withLock { $0.append(old) } })
        #expect(resource.resource == 1)
        let keep = Pin.spki(testChain[0])
        // A first set tightens (before it, the host was refused or unpinned).
        _ = pinning.trustManager.accept(
            signer.sign(makeSet(version: 1, pins: [keep])), for: "example.com", now: testNow)
        #expect(resource.resource == 2)
        // Adding a pin loosens: nothing to replace.
        _ = pinning.trustManager.accept(
            signer.sign(makeSet(version: 2, pins: [keep, .spki(testChain[1])])), for: "example.com", now: testNow)
        #expect(resource.generation == 1)
        // Dropping a pin tightens.
        _ = pinning.trustManager.accept(
            signer.sign(makeSet(version: 3, pins: [.spki(testChain[1])])), for: "example.com", now: testNow)
        #expect(resource.resource == 3)
        #expect(retired.withLock { $0 } == [1, 2])
        resource.close()
        _ = pinning.trustManager.accept(
            signer.sign(makeSet(version: 4, pins: [randomPin()])), for: "example.com", now: testNow)
        #expect(resource.generation == 2)
        #expect(retired.withLock { $0 } == [1, 2, 3])
    }

    /// Issue 38, Performance: the initializer with 100 persisted sets and a bundled export of 100 hosts. It runs at
    /// app launch; aim under 10 ms on the reference machine. The bound here is generous (a loaded machine).
    @Test(.blocking) func initializerCostWith100PersistedAnd100BundledSets() throws {
        let storage = try makeTemporaryDirectory()
        let bundle = try makeTemporaryDirectory()
        let pins = bundle.appendingPathComponent("pins")
        try FileManager.default.createDirectory(at: pins, withIntermediateDirectories: true)
        var hosts: [String] = []
        for index in 0..<100 {
            let saved = "saved\(index).example.com"
            let bundled = "bundled\(index).example.com"
            hosts += [saved, bundled]
            try PinStorage(directory: storage).save(signer.sign(makeSet(host: saved)), for: saved)
            try Data(signer.sign(makeSet(host: bundled))).write(to: pins.appendingPathComponent(bundled))
        }
        var times: [Double] = []
        for _ in 0..<9 {
            let started = ContinuousClock.now
            let pinning = try client(
                configuration(hosts: hosts, storage: storage, bundle: bundle), startsPolling: false)
            let elapsed = ContinuousClock.now - started
            #expect(pinning.hostsMissingSets.isEmpty)
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        times.sort()
        print("PinningClient.init, 100 persisted + 100 bundled sets: median \(times[4]) ms, min \(times[0]) ms")
        #expect(times[4] < 2000)
    }

    @Test func anAppBuildsAFixedSetForItsOwnTests() throws {
        // Only `import PinSetClient` is needed: PinSet and Pin are re-exported.
        let pinning = PinningClient(fixedSets: [
            PinSet(
                host: "API.example.com", version: 1, issuedAt: testNow, expiresAt: testNow.addingTimeInterval(3600),
                pins: [Pin(sha256: try SPKIPin.sha256(ofCertificateDER: chain[0]))])
        ])
        #expect(pinning.trustManager.evaluate(chain: chain, host: "api.example.com", now: testNow).allowsConnection)
        #expect(
            !pinning.trustManager.evaluate(chain: [chain[1]], host: "api.example.com", now: testNow).allowsConnection)
        #expect(pinning.hostsMissingSets.isEmpty)
        #expect(!pinning.isRunning)
    }
}
