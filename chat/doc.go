// Package chat is the state of a chat agent: a Message (a langchaingo
// llms.MessageContent with an id), and a messages field whose reducer is
// LangGraph's add_messages.
//
// Declare the field once, over your own state:
//
//	type State struct{ Messages []chat.Message }
//
//	var Messages = chat.Messages("messages", func(s *State) *[]chat.Message { return &s.Messages })
//
// A node writes Messages.Set([]chat.Message{…}) and the reducer (Add) merges them
// into the history:
//
//   - a message without an id gets one (derived from its content and where
//     it lands, so the same run always assigns the same ids);
//   - a message whose id is already in the history replaces it in place;
//   - Remove(id) deletes the message with that id, RemoveAll() the whole
//     history before it (the messages after it in the same write are kept).
//
// Messages convert losslessly to and from llms.MessageContent (Content,
// FromContent), so they go to any llms.Model unchanged, and their JSON form
// keeps every part — text, image URLs, binary data, tool calls with their
// arguments, tool responses — through every checkpoint saver.
//
// A model node that streams tokens tags them with the id of the message they
// become: graph.StreamingFunc(ctx, id) sends each chunk to the graph's
// Messages stream with its node, step and Event.MessageID.
//
// The tool node and the tools-condition router are in package
// chat/toolnode, the prebuilt ReAct agent in chat/agent, and trimming and
// summarising of long histories in chat/history.
package chat
