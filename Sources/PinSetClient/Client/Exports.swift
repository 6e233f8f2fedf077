// What an app needs to build a fixed set in its own tests (`PinSet`, `Pin`, `PinRole`, …) lives in PinSetCore,
// which is not a product: re-exported so that `import PinSetClient` is enough.
@_exported import PinSetCore
