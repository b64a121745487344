# The same program in LangGraph Python (written for docs/langgraph.md from
# LangGraph's guides on the prebuilt agent and on interrupts in tools).
from langchain.chat_models import init_chat_model
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt


def get_weather(city: str) -> str:
    """Get the weather in a city."""
    answer = interrupt({"tool": "get_weather", "args": {"city": city}})
    if answer != "approve":
        return "The user rejected the call."
    return f"It is sunny in {city}."


model = init_chat_model("openai:gpt-4o-mini")
agent = create_react_agent(model, [get_weather], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
out = agent.invoke({"messages": [{"role": "user", "content": "What is the weather in Paris?"}]}, config)
print("asks:", out["__interrupt__"][0].value)
out = agent.invoke(Command(resume="approve"), config)
print(out["messages"][-1].content)
