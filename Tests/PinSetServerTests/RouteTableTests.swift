import Foundation
import Testing

@testable import PinSetServer

/// The route table carries everything (issue 21 item 1): each route its right, and the metrics a label for every
/// status openapi.yaml documents (item 2).
@Suite struct RouteTableTests {
    @Test func everyAdminRouteNeedsATokenAndNoOtherDoes() {
        for route in RouteTable.all {
            #expect(
                route.access.needsToken == RouteTable.needsToken(route.path), "\(route.method) \(route.path)")
        }
    }

    @Test func everyDocumentedStatusHasItsOwnMetricsLabel() throws {
        let spec = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../openapi.yaml"),
            encoding: .utf8)
        let documented = Set(
            spec.split(separator: "\n").compactMap { line -> Int? in
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("\""), text.hasSuffix("\":"), text.count == 6 else { return nil }
                return Int(text.dropFirst().prefix(3))
            })
        #expect(documented.contains(403) && documented.contains(409))
        #expect(documented.isSubset(of: ServerMetrics.statuses), "\(documented.subtracting(ServerMetrics.statuses))")
        for (index, status) in ServerMetrics.statuses.enumerated() {
            #expect(ServerMetrics.statusIndex(status) == index)
        }
        #expect(ServerMetrics.statusIndex(418) == ServerMetrics.statuses.count)
    }
}
