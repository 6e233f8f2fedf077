#if canImport(Glibc)
    import Glibc
#endif

/// Backs long-lived memory with 2 MiB pages on Linux (transparent huge pages), best effort.
///
/// A random lookup among a million stored resources touches a table slot and a document that sit anywhere in
/// about a gigabyte: with 4 KiB pages each is a TLB miss as well as a cache miss, and on a virtual machine a TLB
/// miss walks two page tables. With 2 MiB pages the whole set needs a few hundred TLB entries. glibc hands out
/// huge pages only from its main heap and only when told to (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`), and the
/// documents are allocated by whichever thread loads them, so the regions they already occupy are advised
/// (`MADV_HUGEPAGE`, which also makes later faults there huge) and collapsed in place (`MADV_COLLAPSE`,
/// Linux 6.1 and later; older kernels refuse it and nothing changes).
///
/// Collapsing copies the memory (about 3 s of CPU per GB on a 2-core VM): run it on a background thread. The
/// administrator's choice wins: nothing is done when `/sys/kernel/mm/transparent_hugepage/enabled` says
/// `[never]`. Nothing here changes what the memory holds; a region that cannot be collapsed (in use by another
/// mapping, no free huge page) stays as it was.
enum HugePages {
    /// The size of a transparent huge page on x86-64 and arm64 (4 KiB base pages).
    static let size: UInt = 2 << 20

    /// `MADV_COLLAPSE` (Linux 6.1, `include/uapi/asm-generic/mman-common.h`); Debian 12's glibc headers predate it.
    private static let collapseAdvice: Int32 = 25

    /// The 2 MiB region that holds `address`.
    @inline(__always)
    static func region(of address: UInt) -> UInt { address & ~(size - 1) }

    /// Whether the system allows transparent huge pages at all (not `[never]`). Always `false` off Linux.
    static var allowed: Bool {
        #if os(Linux)
            guard let file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r") else { return false }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 128)
            guard fgets(&line, Int32(line.count), file) != nil else { return false }
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return !text.contains("[never]")
        #else
            return false
        #endif
    }

    /// Advises and collapses each of `regions` (2 MiB-aligned addresses), in address order, pausing `pause`
    /// microseconds after each. Returns how many regions now use a huge page.
    static func back(regions: Set<UInt>, pause: UInt32 = 2_000) -> Int {
        #if os(Linux)
            var collapsed = 0
            for region in regions.sorted() {
                guard let start = UnsafeMutableRawPointer(bitPattern: region) else { continue }
                _ = madvise(start, Int(size), MADV_HUGEPAGE)
                if madvise(start, Int(size), collapseAdvice) == 0 { collapsed += 1 }
                // A collapse holds the process's memory-map lock while it copies (a few ms): other threads' page
                // faults and mappings wait for it, so leave them a gap between regions.
                usleep(pause)
            }
            return collapsed
        #else
            return 0
        #endif
    }
}
