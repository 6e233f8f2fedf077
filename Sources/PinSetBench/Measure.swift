import Foundation

/// Interleaved A/B timing: each round times `iterations` runs of the candidate, then of the baseline.
struct Measurement {
    /// Median nanoseconds per operation of the candidate and baseline, and the per-round ratios.
    let candidateNanos: Double
    let baselineNanos: Double
    let ratios: [Double]

    var medianRatio: Double { Self.median(ratios) }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Times `candidate` against `baseline` over `rounds` interleaved rounds (after one warm-up round).
    static func run(
        rounds: Int, iterations: Int, candidate: () -> UInt8, baseline: () -> UInt8
    ) -> Measurement {
        var sink: UInt8 = 0
        var candidateTimes: [Double] = []
        var baselineTimes: [Double] = []
        var ratios: [Double] = []
        for round in 0...rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { sink &+= candidate() }
            let middle = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { sink &+= baseline() }
            let end = DispatchTime.now().uptimeNanoseconds
            guard round > 0 else { continue }  // warm-up
            let a = Double(middle - start) / Double(iterations)
            let b = Double(end - middle) / Double(iterations)
            candidateTimes.append(a)
            baselineTimes.append(b)
            ratios.append(a / b)
        }
        if sink == 42 { FileHandle.standardError.write(Data(" ".utf8)) }  // keeps the work observable
        return Measurement(
            candidateNanos: median(candidateTimes), baselineNanos: median(baselineTimes), ratios: ratios)
    }

    /// A markdown table row: `| id | what | candidate | baseline | ratio median (min–max) | goal | PASS/FAIL |`.
    func row(id: String, what: String, goal: Double) -> String {
        let pass = medianRatio <= goal
        return "| \(id) | \(what) | \(Self.format(candidateNanos)) | \(Self.format(baselineNanos)) | "
            + String(format: "%.2f× (%.2f–%.2f)", medianRatio, ratios.min() ?? 0, ratios.max() ?? 0)
            + " | ≤ \(String(format: "%.1f", goal))× | \(pass ? "PASS" : "FAIL") |"
    }

    static func format(_ nanos: Double) -> String {
        nanos >= 1000 ? String(format: "%.2f µs", nanos / 1000) : String(format: "%.0f ns", nanos)
    }
}
