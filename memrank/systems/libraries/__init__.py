"""Third-party memory libraries run in-process, each in an offline configuration its project
documents: Chroma, LanceDB, LangGraph's store, LlamaIndex's BM25 retriever and Mem0's library.

Each is an optional extra of the package (``memrank[chroma]`` and so on), pinned to the version
its board row was measured with, and each module imports its library only when a system is
made, so listing the catalog imports none of them. docs/systems.md (Libraries) says what each
configuration is and what it leaves out.
"""
