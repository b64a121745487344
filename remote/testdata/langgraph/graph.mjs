// The "reviewer" graph of remote/langgraph_test.go: draft, then ask (an
// interrupt whose answer is logged).
import { StateGraph, Annotation, START, END, interrupt } from "@langchain/langgraph";
const S = Annotation.Root({
  topic: Annotation(),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
export const graph = new StateGraph(S)
  .addNode("draft", (s) => ({ log: ["drafted " + s.topic] }))
  .addNode("ask", (s) => { const a = interrupt({ question: "publish " + s.topic + "?" }); return { log: ["answered " + a] }; })
  .addEdge(START, "draft").addEdge("draft", "ask").addEdge("ask", END)
  .compile();
