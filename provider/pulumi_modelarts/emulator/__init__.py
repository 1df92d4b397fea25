"""An embedded ModelArts emulator for the demo and the tests (not for production)."""
