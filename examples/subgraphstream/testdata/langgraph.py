# The same program in LangGraph Python (written for docs/langgraph.md from
# LangGraph's subgraph guide: a subgraph with a different state schema,
# called from a node, streamed with subgraphs=True).
from typing import TypedDict

from langgraph.graph import START, StateGraph


class Parent(TypedDict):
    foo: str


class Child(TypedDict):
    bar: str


def sub_1(state: Child):
    return {"bar": state["bar"] + "baz"}


def sub_2(state: Child):
    return {"bar": state["bar"] + "!"}


sub_builder = StateGraph(Child)
sub_builder.add_node("sub_1", sub_1)
sub_builder.add_node("sub_2", sub_2)
sub_builder.add_edge(START, "sub_1")
sub_builder.add_edge("sub_1", "sub_2")
sub = sub_builder.compile()


def node_1(state: Parent):
    return {"foo": sub.invoke({"bar": state["foo"]})["bar"]}


builder = StateGraph(Parent)
builder.add_node("node_1", node_1)
builder.add_edge(START, "node_1")
app = builder.compile()
for namespace, values in app.stream({"foo": "foo"}, stream_mode="values", subgraphs=True):
    print(namespace, values)
