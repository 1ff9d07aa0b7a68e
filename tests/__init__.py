"""The tests, in folders that mirror the product; shared tables and helpers in tests/support/."""
