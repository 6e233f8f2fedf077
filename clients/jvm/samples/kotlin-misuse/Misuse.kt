// Must NOT compile (issue 39): the set of a host may be missing, so Kotlin must refuse a call without `?.`.
// `make test-jvm` compiles this and expects kotlinc to fail with "Only safe (?.) or non-null asserted (!!.) calls".

import dev.pinset.PinSetStore

fun versionOf(store: PinSetStore): Long = store.pinSet("other").version()
