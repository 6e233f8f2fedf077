import Foundation
import Testing

/// Runs a test on a thread of its own (a *lane*) instead of a thread of Swift's cooperative pool.
///
/// Why it exists (issue 41, item 0): Swift Testing runs every test, synchronous ones included, on the cooperative
/// pool, which has one thread per core, two on the CI machine. A synchronous test that starts servers, runs
/// `openssl`, sleeps or waits on a socket holds its pool thread until it returns. With two such tests running,
/// nothing async in the whole test process moves: an updater's polling loop, an event recorder, a NIO callback's
/// task. Under the full suite the pool's queue held minutes of blocking tests, so an end-to-end test waiting 30 s
/// for a local fetch of a few milliseconds ran out of time (`KeyCompromiseDrillTests`, 2 failures in 3 clean runs).
///
/// A suite or test marked `.blocking` waits (asynchronously, holding no thread) for one of ``BlockingLanes/count``
/// lanes, then runs on it through a task executor preference (SE-0417): the test's synchronous code runs on the
/// lane's thread, and the pool stays free for async work. Tasks the test creates with `Task {}` do not inherit
/// the preference: they run on the pool as in an app. The lanes keep as many blocking tests running at once as
/// the pool did, so timing-sensitive tests see the same load as before.
///
/// Mark every suite whose tests block their thread; a suite of `async` tests that only await needs no mark.
public struct BlockingTrait: SuiteTrait, TestTrait, TestScoping {
    /// Applies to every test of a marked suite, nested suites included.
    public var isRecursive: Bool { true }

    /// Each test case (the one case of a test without arguments, or each argument) gets a lane of its own.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    /// Runs `function` on a lane, waiting for a free one first.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A test marked twice (its suite and an enclosing one) takes one lane, not two: two tests each holding one
        // lane and waiting for a second would wait for ever.
        if BlockingLanes.onLane { return try await function() }
        let lane = await BlockingLanes.shared.acquire()
        defer { BlockingLanes.shared.release(lane) }
        try await BlockingLanes.$onLane.withValue(true) {
            try await withTaskExecutorPreference(lane) { try await function() }
        }
    }
}

extension Trait where Self == BlockingTrait {
    /// The test blocks its thread (servers, processes, sleeps, sockets): run it on a lane, off Swift's cooperative
    /// pool. See ``BlockingTrait``.
    public static var blocking: Self { Self() }
}

/// The lanes ``BlockingTrait`` hands out: a fixed set of threads, each a `TaskExecutor`.
public final class BlockingLanes: @unchecked Sendable {
    /// One lane per core, at least two: as many blocking tests at once as the cooperative pool ran before.
    public static let count = max(2, ProcessInfo.processInfo.activeProcessorCount)
    static let shared = BlockingLanes(count: count)
    /// Whether the current task already runs on a lane.
    @TaskLocal static var onLane = false

    private let lock = NSLock()
    private var free: [Lane]
    private var waiting: [CheckedContinuation<Lane, Never>] = []

    init(count: Int) {
        free = (0..<count).map { Lane(name: "pinset test lane \($0)") }
    }

    func acquire() async -> Lane {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let lane = free.popLast() {
                lock.unlock()
                continuation.resume(returning: lane)
            } else {
                waiting.append(continuation)
                lock.unlock()
            }
        }
    }

    func release(_ lane: Lane) {
        lock.lock()
        if waiting.isEmpty {
            free.append(lane)
            lock.unlock()
        } else {
            let next = waiting.removeFirst()
            lock.unlock()
            next.resume(returning: lane)
        }
    }

    /// A thread that runs the jobs enqueued on it, one at a time, in order.
    final class Lane: TaskExecutor, @unchecked Sendable {
        private let condition = NSCondition()
        private var jobs: [UnownedJob] = []

        init(name: String) {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.stackSize = 8 << 20  // as a main thread's: some tests recurse deeply (nested JSON)
            thread.start()
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }

        private func run() {
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}
