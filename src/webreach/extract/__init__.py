"""Extraction: bytes -> document (sniffing, charset, HTML tree, metadata, walls, passthrough, PDF, the cascade).

Pure and offline: nothing here touches the network. trafilatura and pypdf are imported only in this package.
"""
