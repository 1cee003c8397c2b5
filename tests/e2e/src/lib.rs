//! End-to-end tests of the real window live in tests/.
