import PinSetCore

/// A SHA-256 Merkle tree hash: 32 bytes.
public typealias TreeHash = [UInt8]

/// RFC 6962 §2.1 hashing (SHA-256, `0x00` leaf prefix, `0x01` node prefix), over the SHA-256 each side injects
/// (swift-crypto in the client, OpenSSL on the server) through ``TrustCrypto``.
public struct MerkleHasher: Sendable {
    /// Where SHA-256 (and, for notes, Ed25519) comes from.
    public let crypto: any TrustCrypto

    /// Creates a hasher over `crypto`'s SHA-256.
    public init(crypto: any TrustCrypto) {
        self.crypto = crypto
    }

    /// The root of the empty tree: SHA-256 of the empty string.
    public var emptyRoot: TreeHash { crypto.sha256([]) }

    /// The leaf hash of one entry: SHA-256(0x00 || entry).
    public func leafHash(_ entry: some Collection<UInt8>) -> TreeHash {
        var message: [UInt8] = [0]
        message.reserveCapacity(entry.count + 1)
        message.append(contentsOf: entry)
        return crypto.sha256(message)
    }

    /// The hash of an inner node: SHA-256(0x01 || left || right).
    public func nodeHash(_ left: TreeHash, _ right: TreeHash) -> TreeHash {
        var message: [UInt8] = [1]
        message.reserveCapacity(65)
        message.append(contentsOf: left)
        message.append(contentsOf: right)
        return crypto.sha256(message)
    }

    /// The Merkle Tree Hash (RFC 6962 §2.1) of a list of leaf hashes; ``emptyRoot`` for none.
    public func rootHash(leafHashes: some RandomAccessCollection<TreeHash>) -> TreeHash {
        let hashes = Array(leafHashes)
        if hashes.isEmpty { return emptyRoot }
        return mth(hashes[...])
    }

    private func mth(_ hashes: ArraySlice<TreeHash>) -> TreeHash {
        if hashes.count == 1 { return hashes.first! }
        let split = hashes.startIndex + MerkleMath.largestPowerOfTwo(below: hashes.count)
        return nodeHash(mth(hashes[..<split]), mth(hashes[split...]))
    }

    /// The root of a complete subtree whose leaves (at any level) are `hashes`, a power of two of them.
    func perfectRoot(_ hashes: ArraySlice<TreeHash>) -> TreeHash {
        precondition(hashes.count > 0 && hashes.count & (hashes.count - 1) == 0, "not a power of two")
        var level = Array(hashes)
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: 2).map { nodeHash(level[$0], level[$0 + 1]) }
        }
        return level[0]
    }
}

/// Integer helpers of RFC 6962's recursions.
enum MerkleMath {
    /// The largest power of two strictly below `n` (n ≥ 2).
    static func largestPowerOfTwo(below n: Int) -> Int {
        precondition(n >= 2)
        return 1 << (Int.bitWidth - 1 - (n - 1).leadingZeroBitCount)
    }

    /// Whether `n` is a power of two (n ≥ 1).
    static func isPowerOfTwo(_ n: Int) -> Bool { n > 0 && n & (n - 1) == 0 }
}
