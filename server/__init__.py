"""The server's infrastructure, apart from presentation: sandboxed workers, the byte-bounded LRU, the run store."""
