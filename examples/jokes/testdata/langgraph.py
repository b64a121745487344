# The same program in LangGraph Python (written for docs/langgraph.md from
# LangGraph's map-reduce, persistence and time-travel guides).
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


class Jokes(TypedDict):
    topic: str
    subjects: list[str]
    jokes: Annotated[list[str], operator.add]
    best: str


def subjects(state: Jokes):
    return {"subjects": [state["topic"] + " at work", state["topic"] + " at home"]}


def joke(subject: str):
    return {"jokes": [f"A joke about {subject}"]}


def best(state: Jokes):
    return {"best": max(state["jokes"], key=len)}


def fan_out(state: Jokes):
    return [Send("joke", subject) for subject in state["subjects"]]


builder = StateGraph(Jokes)
builder.add_node("subjects", subjects)
builder.add_node("joke", joke)
builder.add_node("best", best)
builder.add_edge(START, "subjects")
builder.add_conditional_edges("subjects", fan_out, ["joke"])
builder.add_edge("joke", "best")

with SqliteSaver.from_conn_string("jokes.db") as saver:
    app = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "1"}}
    print(app.invoke({"topic": "cats"}, config)["best"])
    for snap in app.get_state_history(config):
        if snap.next == ("best",):  # before the join: time travel
            fork = app.update_state(snap.config, {"jokes": ["A much longer joke about cats"]}, as_node="joke")
            print(app.invoke(None, fork)["best"])
            break
