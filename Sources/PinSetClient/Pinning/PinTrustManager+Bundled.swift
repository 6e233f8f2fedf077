import Foundation
import PinSetCore

extension PinTrustManager {
    /// Installs documents the app ships in its bundle: the output of `pinset export`, before the first fetch.
    ///
    /// Each file of `directory/pins/` (or of `directory` itself when it has no `pins` folder) is the signed
    /// document of the host it is named after. Every document is checked as a persisted one is
    /// (``installTrusted(document:for:)``): signature and trusted key, host, and rollback against the set in force. Its
    /// time is not checked: an expired bundled document becomes a stale set (``PinningOptions/staleSetPolicy``).
    /// A refused file (tampered, another host's, signed by an unknown key) changes nothing and does not stop the
    /// others.
    ///
    /// With a tlog-policy (``PinningOptions/logPolicy``), each document needs its C2SP tlog-proof (as
    /// `GET /pins/<host>/proof` serves it) in `directory/proof/pins/<host>`, where `pinset export --log-from` writes
    /// it, or in `directory/proofs/<host>`: PROTOCOL §7.4 steps 1–2 are checked, and step 3 only against a largest
    /// checkpoint of the same size (offline there are no tiles). A missing or failing proof refuses the document
    /// (``DocumentRejectionCode/notLogged``, or ``DocumentRejectionCode/logFork``). A bundled proof never becomes the
    /// largest checkpoint. A fork it shows is handled as a fetched one's: the log key is trusted no more, and the
    /// updater (``PinSetUpdater``) of this manager reports the fork and keeps it.
    ///
    /// In an Apple app, add the export directory to the target as a *folder reference*, so that its `pins/`
    /// folder keeps its layout, and pass `Bundle.main.url(forResource: "pinset-export", withExtension: nil)`.
    ///
    /// - Parameter directory: the directory `pinset export --out` wrote.
    /// - Returns: the outcome for each file, by host name; empty when the directory cannot be read.
    @discardableResult
    public func installBundledDocuments(directory: URL) -> [String: Result<VerifiedDocument, DocumentRejection>] {
        let (folder, names) = Self.bundledFiles(in: directory)
        var outcomes: [String: Result<VerifiedDocument, DocumentRejection>] = [:]
        for name in names {
            let bytes: [UInt8]
            switch readBundled(folder.appendingPathComponent(name, isDirectory: false), name: name) {
            case nil: continue
            case .failure(let rejection):
                outcomes[name] = .failure(rejection)
                continue
            case .success(let read): bytes = read
            }
            if let log {
                // Where `pinset export --log-from` writes it (PROTOCOL §7.3's mirror names), or `proofs/<host>`.
                let proofs = [
                    directory.appendingPathComponent("proof/pins", isDirectory: true),
                    directory.appendingPathComponent("proofs", isDirectory: true),
                ].map { $0.appendingPathComponent(name, isDirectory: false) }
                if let refusal = log.checkBundled(
                    bytes, proof: proofs, document: "/pins/\(name)", trust: trustStore?.current)
                {
                    outcomes[name] = .failure(refusal)
                    continue
                }
            }
            outcomes[name] = installTrusted(document: bytes, for: name)
        }
        return outcomes
    }

    /// ``installBundledDocuments(directory:)`` at launch without its cost: lists the files now, and reads and
    /// checks each one (``deferTrusted(_:for:)``) when its host is first needed. Without a tlog-policy only (the
    /// proofs are checked against the log state of the launch): with one, the documents are installed at once.
    func deferBundledDocuments(directory: URL) {
        guard log == nil else {
            installBundledDocuments(directory: directory)
            return
        }
        let (folder, names) = Self.bundledFiles(in: directory)
        for name in names {
            let file = folder.appendingPathComponent(name, isDirectory: false)
            deferTrusted(
                DeferredDocument(load: { [weak self] in
                    guard case .success(let bytes) = self?.readBundled(file, name: name) else { return nil }
                    return bytes
                }), for: name)
        }
    }

    /// The folder holding the documents (`directory/pins`, else `directory`) and its file names, sorted, without
    /// hidden files.
    private static func bundledFiles(in directory: URL) -> (folder: URL, names: [String]) {
        let pins = directory.appendingPathComponent("pins", isDirectory: true)
        var isDirectory: ObjCBool = false
        let folder =
            FileManager.default.fileExists(atPath: pins.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? pins : directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return (folder, names.sorted().filter { !$0.hasPrefix(".") })
    }

    /// The bytes of a bundled file; `nil` when it is not a readable regular file, a refusal when it is too large.
    private func readBundled(_ file: URL, name: String) -> Result<[UInt8], DocumentRejection>? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        guard let size = attributes[.size] as? Int, size <= verifier.maxBytes else {
            return .failure(DocumentRejection(.tooLarge, "\(name) is larger than \(verifier.maxBytes) bytes"))
        }
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return .success([UInt8](data))
    }
}
