"""What the proxy, the tap and the emulator share: serving on loopback, and saying in one line why
a network call failed."""
