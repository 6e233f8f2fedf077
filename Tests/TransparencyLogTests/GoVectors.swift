/// Vectors made by an independent implementation: Go's golang.org/x/mod/sumdb/tlog and sumdb/note (Debian's
/// golang-golang-x-mod-dev 0.7.0, go1.19), over the entries "entry-0" … "entry-999". Tile paths are x/mod's
/// `tile/8/<L>/<N>` with the height element dropped, which is C2SP tlog-tiles' form; tile data as SHA-256 hex.
enum GoVectors {
    static let entryCount = 1000
    static func entry(_ i: Int) -> [UInt8] { Array("entry-\(i)".utf8) }

    static let roots: [(size: Int, root: String)] = [
        (1, "QHZrIDNCkCb1PVRQJnmoOXBrR0H43K86i7pfQbX/4HU="),
        (2, "LyelCCwdQq+kiKw1Cp/EOQwIT1T3Hs3/hZ6Y24QptHk="),
        (3, "pkvybgkSj2/i/m+LLYyAHhZrV8BHp82bK4Ceepai8cs="),
        (7, "kTlgHMHKirKnoMLBNMBIRfKxulSag9bIRc/NpDnMWF0="),
        (8, "38wTubDKkyxo3j1Z6qqP4mapyAkcAwDoQF6/6w0OWDI="),
        (255, "RdqfN0dI4Xo3L3HABCKxLiv5aELx9hxXQP5JTkvs/w8="),
        (256, "+F9OrTQIBxC00egIMBVDqquBqgTeuIWZNQ3Cak8vWN4="),
        (257, "kYsc7GTzF8duPPVcBTaEHAOe/wZ3LruIKM58F2Aotaw="),
        (511, "qP9zdX7UYstfHdgB6SwVpcuoUDCmMzal+kSctzCnrxc="),
        (512, "yVSZmstk87dU2dEo15xto2DYeDU57KpKz6f0tLIOqv0="),
        (513, "CGaIgyFVdheXwAR/QMj52EMC2amvbSYw2JD/uEjdUz8="),
        (1000, "0D1jt3KvmQGYF+4+AYKG02omFhvbW/6CKOksAqvpEV0="),
    ]
    static let inclusion: [(index: Int, size: Int, proof: [String])] = [
        (0, 1, []),
        (
            5, 7,
            [
                "GUu1otW9EOXRqm/V1CmAs1bK8dpiPNmYfEv6L4F3Htc=", "DP2ldv9LKeozw6/a7tG9Y362VLKKBDAvyrX9fbB4Acw=",
                "JWueiCXl03CkrgBdCQHqKRl34pJ/XPjj5yZg3QlRnts=",
            ]
        ),
        (
            255, 1000,
            [
                "9pZCvR34YgKPO8GSkcJpme8dVqfTl0J3XgG/vrw9kYo=", "+I9SgHstH4Ip/gw3IREOjAor0o72quWRsLiauxmZC00=",
                "179rGyKmZooptohvPA4Os/ZoXFK/JW783in4jjUDza4=", "qBP+LFVI2ueWTPMjYG8uF6lq9dbSDayWx/mG8+o7Gcw=",
                "7bQ34VN+tCHXyE3Wg0Qv7RZruOHnJ/WDcNUhfZr/G2c=", "0ED3NxxWqfFqEpGdhGzgtojbDVtn+16U01yEe4Ssc0s=",
                "ftrluq+sbIbuN10Z2ADiO5cRYQFjk9tzjn32gQqUBcU=", "mZxztsWx1UKktDwZnd2BDnXakCg8v+EJOXbuJ5e90VQ=",
                "MUv1ErFfDGcUlQkVAv4BKFNFh6BHpM8ERmyt+nSDzB0=", "0pUD4PYEmhlTwaL9L5UWJJha89FXWrJMM0Mcaywfuik=",
            ]
        ),
        (
            256, 1000,
            [
                "t++p40QN9wdAlqHYgoEDQalGFZLZt21CLaZNDs5pKCQ=", "MGDl4nfZMjilKyMQ92LTkLRPIuxNEnwQkMomtBQEYdM=",
                "67IKK4Yzrq3amv+HL+lJLP8U47+UkGS6AI4+W8KGhRA=", "gMZhbGIb1eu2Tp5qoxKXbBBA7cG1yAi9hsSfMUubkvQ=",
                "qGMYnRoXwn5HNI63ort+UOltVbNkQIEpy1ImOCaLlcs=", "nVwDbjgTdSx6voHTUJYwpZO5tCCscNOg7TLxNM/CrcA=",
                "X1lKdZ7G98OBGzgufJU0DWuUvofd8/2vqobel+K6J98=", "aNqWCx+YsQrcDqIWwtT8aDBVFBcGgPWbagwRGftV9rI=",
                "+F9OrTQIBxC00egIMBVDqquBqgTeuIWZNQ3Cak8vWN4=", "0pUD4PYEmhlTwaL9L5UWJJha89FXWrJMM0Mcaywfuik=",
            ]
        ),
        (
            999, 1000,
            [
                "LzXUTods+gDyeOXgC6VcuN5hImbhyg3xuzUkOmYwUGI=", "NBUtVqwDFtXVyfW5MdTCN2VvA0W1VlMzJC4L27GOTF8=",
                "FzKYE8swvAm3Fcrgoozd/9ZVDMFVXngWXVLKygiCiW8=", "kinoqUEfZTozL65QFjhA3UPgKxb9Uj7qU7LKvrzudSM=",
                "7Ij6SC+iKgx7Yagkr1GDkFAR9ff1y8O1g6lzL4jaysE=", "PetlIH6NMUvDpKAmwQK7MMFyxHRP6o0aW6FKsodE5G0=",
                "6rzn4pEUwLVlYUXku3/JJxjFw1sMNEDQ4GnDovjcnHM=", "yVSZmstk87dU2dEo15xto2DYeDU57KpKz6f0tLIOqv0=",
            ]
        ),
        (
            300, 513,
            [
                "7PsvXe6wlWUfVNI7RNIcbWZ5ox3PosNmfBm8jYLJoEw=", "O7unHoda0qFR8Uyqa6d0tSds/KKVKT2XrAPKWjTkpp4=",
                "UgiJAe094wANsRP+ill2+OV+dwqbxH5+A5YT7dcKVa8=", "5QWGoKvVDcWxa2f8JXX8CmwY8h7Xke6CGi0fr/++f+k=",
                "+o84lIXurO+qeFE+KnvWySNDsJV/TDoSopG1hKHhIIk=", "AmVbsd3VCvhUVT1ylhqiPiaPJHrlz2DlqFneJTA4ePs=",
                "X1lKdZ7G98OBGzgufJU0DWuUvofd8/2vqobel+K6J98=", "aNqWCx+YsQrcDqIWwtT8aDBVFBcGgPWbagwRGftV9rI=",
                "+F9OrTQIBxC00egIMBVDqquBqgTeuIWZNQ3Cak8vWN4=", "gzBQge9oyXgt3idvSoT6/c+8u7VTT/Yi8Phcd1aEzfk=",
            ]
        ),
    ]
    static let consistency: [(old: Int, new: Int, proof: [String])] = [
        (1, 2, ["6GiBGkgsJ9ULbUXd55xGXWrbmwZkUQBHepDPPYUYiYs="]),
        (
            3, 7,
            [
                "BJ19zbVrz+vTEzBMmDnxlqPUtu873AsIKY+TrIGR8Kg=", "J0ebarMh0u5HdFL2i6UndI6GPK/o+9HfK/idFXDRtpc=",
                "LyelCCwdQq+kiKw1Cp/EOQwIT1T3Hs3/hZ6Y24QptHk=", "5CnFtcyqlSPDcpfxhGdm+QMTfoIZXFGZ5r5XEw0QBsg=",
            ]
        ),
        (4, 8, ["W2aA4wNdupuKIh7oGegF4cF7MzzWZmTnZALqQ9e2SoM="]),
        (
            255, 1000,
            [
                "9pZCvR34YgKPO8GSkcJpme8dVqfTl0J3XgG/vrw9kYo=", "L4mawC7BrXn9WHJGWWWdn1D8lVl564jE40wrMrBtKB0=",
                "+I9SgHstH4Ip/gw3IREOjAor0o72quWRsLiauxmZC00=", "179rGyKmZooptohvPA4Os/ZoXFK/JW783in4jjUDza4=",
                "qBP+LFVI2ueWTPMjYG8uF6lq9dbSDayWx/mG8+o7Gcw=", "7bQ34VN+tCHXyE3Wg0Qv7RZruOHnJ/WDcNUhfZr/G2c=",
                "0ED3NxxWqfFqEpGdhGzgtojbDVtn+16U01yEe4Ssc0s=", "ftrluq+sbIbuN10Z2ADiO5cRYQFjk9tzjn32gQqUBcU=",
                "mZxztsWx1UKktDwZnd2BDnXakCg8v+EJOXbuJ5e90VQ=", "MUv1ErFfDGcUlQkVAv4BKFNFh6BHpM8ERmyt+nSDzB0=",
                "0pUD4PYEmhlTwaL9L5UWJJha89FXWrJMM0Mcaywfuik=",
            ]
        ),
        (256, 1000, ["MUv1ErFfDGcUlQkVAv4BKFNFh6BHpM8ERmyt+nSDzB0=", "0pUD4PYEmhlTwaL9L5UWJJha89FXWrJMM0Mcaywfuik="]),
        (
            257, 513,
            [
                "3LAG8L3VTdYHvrXRIhHSSONWZAbkWWNYlXJMPVengOc=", "t++p40QN9wdAlqHYgoEDQalGFZLZt21CLaZNDs5pKCQ=",
                "MGDl4nfZMjilKyMQ92LTkLRPIuxNEnwQkMomtBQEYdM=", "67IKK4Yzrq3amv+HL+lJLP8U47+UkGS6AI4+W8KGhRA=",
                "gMZhbGIb1eu2Tp5qoxKXbBBA7cG1yAi9hsSfMUubkvQ=", "qGMYnRoXwn5HNI63ort+UOltVbNkQIEpy1ImOCaLlcs=",
                "nVwDbjgTdSx6voHTUJYwpZO5tCCscNOg7TLxNM/CrcA=", "X1lKdZ7G98OBGzgufJU0DWuUvofd8/2vqobel+K6J98=",
                "aNqWCx+YsQrcDqIWwtT8aDBVFBcGgPWbagwRGftV9rI=", "+F9OrTQIBxC00egIMBVDqquBqgTeuIWZNQ3Cak8vWN4=",
                "gzBQge9oyXgt3idvSoT6/c+8u7VTT/Yi8Phcd1aEzfk=",
            ]
        ),
        (
            999, 1000,
            [
                "LzXUTods+gDyeOXgC6VcuN5hImbhyg3xuzUkOmYwUGI=", "vxU4adKQtyx1aayErs8wAaux2X+1jN7AbOoGM7/PSHk=",
                "NBUtVqwDFtXVyfW5MdTCN2VvA0W1VlMzJC4L27GOTF8=", "FzKYE8swvAm3Fcrgoozd/9ZVDMFVXngWXVLKygiCiW8=",
                "kinoqUEfZTozL65QFjhA3UPgKxb9Uj7qU7LKvrzudSM=", "7Ij6SC+iKgx7Yagkr1GDkFAR9ff1y8O1g6lzL4jaysE=",
                "PetlIH6NMUvDpKAmwQK7MMFyxHRP6o0aW6FKsodE5G0=", "6rzn4pEUwLVlYUXku3/JJxjFw1sMNEDQ4GnDovjcnHM=",
                "yVSZmstk87dU2dEo15xto2DYeDU57KpKz6f0tLIOqv0=",
            ]
        ),
    ]
    static let tiles: [(path: String, sha256: String)] = [
        ("tile/0/000", "8921c57d2f65271c82bf0f686c002793863c80c8d1cbbbf5db6046ff59e8b590"),
        ("tile/0/001", "dd08b1125f9e3c3f85bc651d208a59498e054f764faa11bafc35624d9ef19a0d"),
        ("tile/0/002", "f5657fb190bd97153b1adb9a9a08011569218dd495aac6abffa7e344bbd50d67"),
        ("tile/0/003.p/232", "e620db8290e3169452626fa2c37d8c7e25bd896c7fd47ef68f423bebbfe60bab"),
        ("tile/1/000.p/3", "150c1077bef1abcc3d1ae17b1ce8ab77e15053db74abe8247b412132c5a24436"),
    ]
    /// x/mod note.NewEd25519VerifierKey for the key of seed 00 01 … 1f, name pins.example.com/log.
    static let vkey = "pins.example.com/log+4959f4c8+AQOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4"
    /// note.Sign of the checkpoint of the 1000 entries with that key (base64 of the note bytes).
    static let signedCheckpoint =
        "cGlucy5leGFtcGxlLmNvbS9sb2cKMTAwMAowRDFqdDNLdm1RR1lGKzQrQVlLRzAyb21GaHZiVy82Q0tPa3NBcXZwRVYwPQoK4oCUIHBpbnMuZXhhbXBsZS5jb20vbG9nIFNWbjB5SlEvd21JNnZQd0VJSDRaNm55ZExaUmZ4QmhtOHRpRUxUMjU5Uit5cWwzTkJISTV1MDYxSDliQnZJRXZscXNUK1FENkJOTzNGbVhnMlFYcGhOSDZjUUU9Cg=="
}
