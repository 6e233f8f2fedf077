/// One tile of a C2SP tlog-tiles log: `width` consecutive hashes at tile `level`, each the hash of a complete
/// subtree of 256^level leaves. Level 0 holds leaf hashes; its entry bundle holds the entries themselves.
public struct Tile: Hashable, Sendable, CustomStringConvertible {
    /// Hashes in a full tile (a tile is a subtree of height 8).
    public static let fullWidth = 256
    /// The tree levels one tile spans.
    public static let height = 8

    /// The tile level `L` (0 to 63).
    public let level: Int
    /// The tile's index `N` within its level.
    public let index: Int
    /// How many hashes it holds: 256 for a full tile, 1 to 255 for a partial one.
    public let width: Int

    /// Creates a tile coordinate.
    /// - Precondition: level 0...63, index ≥ 0, width 1...256.
    public init(level: Int, index: Int, width: Int = Tile.fullWidth) {
        precondition((0...63).contains(level) && index >= 0 && (1...Tile.fullWidth).contains(width))
        self.level = level
        self.index = index
        self.width = width
    }

    /// Whether this is a partial tile (`.p/<W>` in its path).
    public var isPartial: Bool { width < Tile.fullWidth }

    /// The tile's path below the log prefix: `tile/<L>/<N>[.p/<W>]`.
    public var path: String { "tile/\(level)/\(Tile.pathIndex(index))\(suffix)" }

    /// The path of the level-0 tile's entry bundle: `tile/entries/<N>[.p/<W>]`.
    /// - Precondition: `level == 0`.
    public var entriesPath: String {
        precondition(level == 0, "entry bundles exist for level 0 only")
        return "tile/entries/\(Tile.pathIndex(index))\(suffix)"
    }

    public var description: String { path }

    private var suffix: String { isPartial ? ".p/\(width)" : "" }

    /// `N` as zero-padded 3-digit path elements, all but the last prefixed with `x`: 1234067 is `x001/x234/067`.
    public static func pathIndex(_ n: Int) -> String {
        precondition(n >= 0)
        var groups: [Int] = [n % 1000]
        var rest = n / 1000
        while rest > 0 {
            groups.append(rest % 1000)
            rest /= 1000
        }
        return groups.reversed().enumerated().map { position, group in
            let digits = String(group)
            let padded = String(repeating: "0", count: 3 - digits.count) + digits
            return position == groups.count - 1 ? padded : "x" + padded
        }.joined(separator: "/")
    }

    /// The tile a path below the log prefix names, in its one canonical form (`tile/<L>/<N>[.p/<W>]` or
    /// `tile/entries/<N>[.p/<W>]`, `N` as ``pathIndex(_:)`` writes it), and whether it is the entry bundle.
    /// - Returns: `nil` for any other text (a tile path with a leading zero, a `.p/256`, level 64, …).
    public static func parse(path: some StringProtocol) -> (tile: Tile, isEntries: Bool)? {
        guard path.utf8.count <= 128, path.hasPrefix("tile/") else { return nil }
        var parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }[1...]
        guard let first = parts.popFirst() else { return nil }
        let isEntries = first == "entries"
        let level: Int
        if isEntries {
            level = 0
        } else {
            guard let number = Int(first), (0...63).contains(number), String(number) == first else { return nil }
            level = number
        }
        var width = fullWidth
        if parts.count >= 2, parts[parts.endIndex - 2].hasSuffix(".p") {
            guard let w = Int(parts.last!), (1..<fullWidth).contains(w), String(w) == parts.last! else { return nil }
            width = w
            parts.removeLast()
            parts[parts.endIndex - 1].removeLast(2)
        }
        var index = 0
        for (position, part) in parts.enumerated() {
            let digits = position == parts.count - 1 ? Substring(part) : part.hasPrefix("x") ? part.dropFirst() : ""
            guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                index <= (Int.max - 999) / 1000
            else { return nil }
            index = index * 1000 + Int(digits)!
        }
        guard !parts.isEmpty, pathIndex(index) == parts.joined(separator: "/") else { return nil }
        return (Tile(level: level, index: index, width: width), isEntries)
    }

    /// How many complete 256^level-leaf subtrees a tree of `size` leaves has: the hashes at this tile level.
    public static func hashCount(level: Int, treeSize size: Int) -> Int {
        let shift = Tile.height * level
        return shift >= Int.bitWidth - 1 ? 0 : size >> shift
    }

    /// The tile at `level` holding hash number `position` of that level, as wide as a tree of `treeSize` has it.
    /// - Returns: `nil` when the tree has no such hash.
    public static func containing(level: Int, position: Int, treeSize: Int) -> Tile? {
        let count = hashCount(level: level, treeSize: treeSize)
        guard position >= 0, position < count else { return nil }
        let index = position / fullWidth
        let width = min(fullWidth, count - index * fullWidth)
        return Tile(level: level, index: index, width: width)
    }

    /// Every tile a log of `treeSize` leaves serves, level by level: its full tiles, then its partial one if any.
    /// For 70,000: 273 full and one 112-wide level-0 tiles, one full and one 17-wide level-1 tile, and one
    /// 1-wide level-2 tile (the C2SP tlog-tiles example).
    public static func all(treeSize: Int) -> [Tile] {
        var tiles: [Tile] = []
        var level = 0
        while hashCount(level: level, treeSize: treeSize) > 0 {
            let count = hashCount(level: level, treeSize: treeSize)
            for index in 0..<(count / fullWidth) { tiles.append(Tile(level: level, index: index)) }
            if count % fullWidth > 0 {
                tiles.append(Tile(level: level, index: count / fullWidth, width: count % fullWidth))
            }
            level += 1
        }
        return tiles
    }
}
