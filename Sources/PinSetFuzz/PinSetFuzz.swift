import Foundation
import PinSetCore
import PinSetFuzzing

#if canImport(Glibc)
    import Glibc
#endif

// Two engines over one harness (PinSetFuzzing.FuzzHarness):
// - built normally, a seeded mutation engine (`pinset-fuzz --runs N`), fast enough for `make test`;
// - built with `-sanitize=fuzzer -DFUZZING` (`make fuzz`), libFuzzer's coverage-guided engine.

#if FUZZING
    import CLibFuzzer

    private let harness = FuzzHarness()

    /// One libFuzzer execution; a finding aborts, and libFuzzer saves the input as `crash-<sha1>`.
    private func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        do {
            try harness.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        } catch {
            print("FINDING \(error)")
            abort()
        }
        return 0
    }

    // SwiftPM links an executable's entry point as `main` = `<module>_main`, so libFuzzer's own `main` is not
    // used: this entry point hands over to libFuzzer's driver instead.
    @_cdecl("PinSetFuzz_main")
    func pinsetFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
    }
#else
    /// The input being run, kept where a signal handler can write it out if the process crashes.
    nonisolated(unsafe) private var currentInput = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
    nonisolated(unsafe) private var currentLength = 0
    nonisolated(unsafe) private var crashPath: UnsafeMutablePointer<CChar>? = nil

    @main
    struct PinSetFuzz {
        static func main() {
            var runs = 100_000
            var seed: UInt64 = 20_261_121
            var regressions: String?
            var findings = "fuzz-findings"
            var arguments = CommandLine.arguments.dropFirst().makeIterator()
            while let argument = arguments.next() {
                switch argument {
                case "--runs": runs = Int(arguments.next() ?? "") ?? runs
                case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
                case "--regressions": regressions = arguments.next()
                case "--findings": findings = arguments.next() ?? findings
                case "--write-seeds":
                    // The seed corpus for libFuzzer (`make fuzz`).
                    let directory = arguments.next() ?? "fuzz-corpus"
                    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    for (index, input) in FuzzHarness().seeds().enumerated() {
                        _ = FileManager.default.createFile(atPath: "\(directory)/seed-\(index)", contents: Data(input))
                    }
                    exit(0)
                default:
                    print(
                        "usage: pinset-fuzz [--runs N] [--seed S] [--regressions DIR] [--findings DIR] | --write-seeds DIR\n"
                            + "Mutates seed inputs through every parser target; writes crashing or failing inputs to DIR."
                    )
                    exit(argument == "--help" ? 0 : 2)
                }
            }
            try? FileManager.default.createDirectory(atPath: findings, withIntermediateDirectories: true)
            crashPath = strdup(findings + "/crash-input")
            installCrashHandler()

            let harness = FuzzHarness()
            var failures = 0
            // 1. Every saved regression input must pass.
            var replayed = 0
            if let regressions, let names = try? FileManager.default.contentsOfDirectory(atPath: regressions) {
                for name in names.sorted() where !name.hasSuffix(".md") {
                    guard let data = FileManager.default.contents(atPath: regressions + "/" + name) else { continue }
                    replayed += 1
                    if !execute(harness, [UInt8](data), findings: findings) { failures += 1 }
                }
            }
            // 2. Mutations of the seeds.
            var engine = MutationEngine(seeds: harness.seeds(), harness: harness, seed: seed)
            var perTarget = [Int](repeating: 0, count: FuzzHarness.Target.allCases.count)
            let start = Date()
            for _ in 0..<runs {
                let input = engine.next()
                perTarget[Int(input.first ?? 0) % perTarget.count] += 1
                if !execute(harness, input, findings: findings) { failures += 1 }
                engine.keep(input, outcome: harness.lastOutcome, outcomes: harness.outcomes)
            }
            let seconds = Date().timeIntervalSince(start)
            let targets = zip(FuzzHarness.Target.allCases, perTarget).map { "\($0)=\($1)" }.joined(separator: " ")
            print(
                "pinset-fuzz: \(runs) mutated inputs in \(String(format: "%.1f", seconds)) s "
                    + "(\(Int(Double(runs) / max(seconds, 0.001)))/s), \(replayed) regression inputs, "
                    + "\(failures) failures, seed \(seed)\n  per target: \(targets)\n  verifier outcomes: "
                    + harness.outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            )
            print(
                #"FIGURE fuzz {"executions": \#(runs + replayed), "failures": \#(failures), "seconds": \#(Int(seconds))}"#
            )
            exit(failures == 0 ? 0 : 1)
        }

        /// Runs one input; on a finding writes it to `findings` and returns false.
        static func execute(_ harness: FuzzHarness, _ input: [UInt8], findings: String) -> Bool {
            currentLength = min(input.count, currentInput.count)
            _ = currentInput.initialize(from: input.prefix(currentLength))
            do {
                try harness.run(input)
                return true
            } catch {
                let name = findings + "/finding-" + String(UInt64(bitPattern: Int64(input.hashValue)), radix: 16)
                _ = FileManager.default.createFile(atPath: name, contents: Data(input))
                print("FINDING \(error) (input saved to \(name))")
                return false
            }
        }

        /// On a crash (a Swift trap is SIGILL or SIGTRAP), writes the input that caused it, then dies as before.
        static func installCrashHandler() {
            for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { number in
                    if let crashPath {
                        let fd = open(crashPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                        if fd >= 0 {
                            _ = write(fd, currentInput.baseAddress, currentLength)
                            close(fd)
                        }
                        let note = "pinset-fuzz: crashed; the input is in the findings directory (crash-input)\n"
                        _ = note.withCString { write(2, $0, strlen($0)) }
                    }
                    Glibc.signal(number, SIG_DFL)
                    raise(number)
                }
                action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
                sigaction(signal, &action, nil)
            }
        }
    }
#endif
