import TestSupport
import Testing
import TransparencyLog

@Suite(.blocking) struct MerkleTests {
    /// transparency-dev/merkle's testonly vectors (RFC 6962 leaf inputs and roots of every size 0…8).
    static let leafInputs = [
        "", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f",
    ]
    static let roots = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    @Test func rfc6962RootsOfEverySize() throws {
        let leaves = Self.leafInputs.map { hasher.leafHash(hex($0)) }
        var log = TileHashes()
        #expect(
            try MerkleTree(hasher: hasher, reader: log.reader(hasher: hasher)).rootHash(size: 0) == hex(Self.roots[0]))
        for (size, root) in Self.roots.enumerated().dropFirst() {
            log.append(leafHash: leaves[size - 1], hasher: hasher)
            #expect(hasher.rootHash(leafHashes: leaves.prefix(size)) == hex(root))
            #expect(
                try MerkleTree(hasher: hasher, reader: log.reader(hasher: hasher)).rootHash(size: size) == hex(root))
        }
    }

    @Test func goRootsAndProofsMatch() throws {
        let log = TileHashes(
            leafHashes: (0..<GoVectors.entryCount).map { hasher.leafHash(GoVectors.entry($0)) }, hasher: hasher)
        let tree = MerkleTree(hasher: hasher, reader: log.reader(hasher: hasher))
        for (size, root) in GoVectors.roots {
            #expect(try tree.rootHash(size: size) == b64(root), "root of \(size)")
        }
        for (index, size, proof) in GoVectors.inclusion {
            let made = try tree.inclusionProof(index: index, size: size)
            #expect(made == proof.map(b64), "inclusion \(index) in \(size)")
            #expect(
                hasher.verifyInclusion(
                    leaf: hasher.leafHash(GoVectors.entry(index)), index: index, size: size, proof: proof.map(b64),
                    root: try tree.rootHash(size: size)))
        }
        for (old, new, proof) in GoVectors.consistency {
            #expect(try tree.consistencyProof(from: old, to: new) == proof.map(b64), "consistency \(old) → \(new)")
            #expect(
                hasher.verifyConsistency(
                    oldSize: old, newSize: new, oldRoot: try tree.rootHash(size: old),
                    newRoot: try tree.rootHash(size: new),
                    proof: proof.map(b64)))
        }
        for (path, digest) in GoVectors.tiles {
            let tile = try #require(
                Tile.all(treeSize: GoVectors.entryCount).first { $0.path == path }, "\(path) served")
            #expect(crypto.sha256(try log.data(of: tile)) == hex(digest), "\(path)")
        }
    }

    /// Every inclusion and consistency proof of every tree up to 40 leaves, and around the first tile boundary,
    /// verifies; the same proof with one bit flipped, or for the wrong index or size, does not.
    @Test func everyProofVerifiesAndNoTamperedOneDoes() throws {
        let leaves = (0..<300).map { hasher.leafHash(Array("leaf \($0)".utf8)) }
        let log = TileHashes(leafHashes: leaves, hasher: hasher)
        let tree = MerkleTree(hasher: hasher, reader: log.reader(hasher: hasher))
        let sizes = Array(1...40) + [255, 256, 257, 300]
        var roots: [Int: TreeHash] = [:]
        for size in sizes { roots[size] = try tree.rootHash(size: size) }
        for size in sizes {
            let root = roots[size]!
            #expect(root == hasher.rootHash(leafHashes: leaves.prefix(size)))
            for index in stride(from: 0, to: size, by: size > 40 ? 17 : 1) {
                var proof = try tree.inclusionProof(index: index, size: size)
                #expect(hasher.verifyInclusion(leaf: leaves[index], index: index, size: size, proof: proof, root: root))
                #expect(
                    !hasher.verifyInclusion(
                        leaf: leaves[(index + 1) % 300], index: index, size: size, proof: proof, root: root))
                if !proof.isEmpty {
                    proof[proof.count - 1][0] ^= 1
                    #expect(
                        !hasher.verifyInclusion(leaf: leaves[index], index: index, size: size, proof: proof, root: root)
                    )
                }
            }
            for old in sizes where old < size {
                var proof = try tree.consistencyProof(from: old, to: size)
                #expect(
                    hasher.verifyConsistency(
                        oldSize: old, newSize: size, oldRoot: roots[old]!, newRoot: root, proof: proof))
                proof[0][5] ^= 0x80
                #expect(
                    !hasher.verifyConsistency(
                        oldSize: old, newSize: size, oldRoot: roots[old]!, newRoot: root, proof: proof))
            }
        }
        #expect(
            hasher.verifyConsistency(oldSize: 0, newSize: 7, oldRoot: hasher.emptyRoot, newRoot: roots[7]!, proof: []))
        #expect(hasher.verifyConsistency(oldSize: 7, newSize: 7, oldRoot: roots[7]!, newRoot: roots[7]!, proof: []))
        #expect(!hasher.verifyConsistency(oldSize: 7, newSize: 7, oldRoot: roots[7]!, newRoot: roots[8]!, proof: []))
        #expect(!hasher.verifyConsistency(oldSize: 7, newSize: 8, oldRoot: roots[7]!, newRoot: roots[8]!, proof: []))
        #expect(throws: LogError.self) { try tree.inclusionProof(index: 300, size: 300) }
        #expect(throws: LogError.self) { try tree.rootHash(size: 301) }
    }

    /// Proofs computed from tiles read one at a time (a client over HTTP) equal the server's.
    @Test func tileReaderGivesTheSameProofs() throws {
        let log = TileHashes(
            leafHashes: (0..<GoVectors.entryCount).map { hasher.leafHash(GoVectors.entry($0)) }, hasher: hasher)
        var fetched: [String] = []
        let reader = TileReader(treeSize: 700, hasher: hasher) { tile in
            fetched.append(tile.path)
            // The server's tree is larger; the client asks for the tiles of size 700, partial ones included.
            return try log.data(of: tile)
        }
        let server = MerkleTree(hasher: hasher, reader: log.reader(hasher: hasher))
        let client = MerkleTree(hasher: hasher, reader: reader)
        #expect(try client.rootHash(size: 700) == server.rootHash(size: 700))
        #expect(try client.consistencyProof(from: 255, to: 700) == server.consistencyProof(from: 255, to: 700))
        #expect(try client.inclusionProof(index: 699, size: 700) == server.inclusionProof(index: 699, size: 700))
        // Tile 0/001 is never needed: tile 1/000 holds the hash of its whole subtree.
        #expect(Set(fetched) == ["tile/0/000", "tile/0/002.p/188", "tile/1/000.p/2"])
        #expect(fetched.count == Set(fetched).count, "each tile fetched once")
    }
}
