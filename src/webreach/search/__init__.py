"""The search service: engines behind their policy stacks and the router, the engine caller, warm-up tokens.

Only the Search/EngineResult contract (search/contract.py) is imported from below (policies and routing wrap
and call Searches); everything else here sits above them.
"""
