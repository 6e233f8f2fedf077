import Foundation
import PinSetAdminAPI
import PinSetCore

/// A host's current state as stored: its policy, pins and current document.
package struct HostState: Sendable {
    package var id: Int64
    package var name: String
    package var version: Int
    package var includeSubdomains: Bool
    package var enforce: Bool
    package var reportUri: String?
    package var retired: Bool
    package var updatedAt: Date
    package var pins: [Pin]
    package var document: PublishedDocument

    /// Creates a host's state (the memberwise initializer, for the server's writes).
    package init(
        id: Int64, name: String, version: Int, includeSubdomains: Bool, enforce: Bool, reportUri: String?,
        retired: Bool, updatedAt: Date, pins: [Pin], document: PublishedDocument
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.includeSubdomains = includeSubdomains
        self.enforce = enforce
        self.reportUri = reportUri
        self.retired = retired
        self.updatedAt = updatedAt
        self.pins = pins
        self.document = document
    }

    /// The admin view of this state.
    package var detail: HostDetail {
        HostDetail(
            host: name, version: version, etag: document.etag, issuedAt: document.issuedAt,
            expiresAt: document.expiresAt, updatedAt: updatedAt, includeSubdomains: includeSubdomains,
            enforce: enforce, pins: pins, reportUri: reportUri, kid: document.kid)
    }
}
