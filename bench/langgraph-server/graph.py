"""The 3-node graph of the side-by-side server benchmark, for LangGraph.

`plan` -> `act` -> `review` -> END. Each node appends its name to `log`
(an `operator.add` reducer) and adds one to `count`. There is no model:
the "scripted model" is this deterministic code, so the server's own
overhead is what gets measured.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    """The graph's state: a step counter and the names of the nodes run."""

    count: int
    log: Annotated[list[str], operator.add]


def _step(name: str):
    def node(state: State) -> dict:
        return {"count": state.get("count", 0) + 1, "log": [name]}

    node.__name__ = name
    return node


builder = StateGraph(State)
builder.add_node("plan", _step("plan"))
builder.add_node("act", _step("act"))
builder.add_node("review", _step("review"))
builder.add_edge(START, "plan")
builder.add_edge("plan", "act")
builder.add_edge("act", "review")
builder.add_edge("review", END)

graph = builder.compile()
