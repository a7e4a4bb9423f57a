// Package discovery is the deferred side of a large tool set: the fixed
// discovery tools a deferred tools/list holds (search_tools,
// describe_tools, and the executors call_read_only_tool and call_tool),
// through which a model finds, reads and runs the tools the list leaves
// out, and the vendor _meta (search hints, always-load) a served tool's
// descriptor carries for clients that defer tools by themselves.
//
// The discovery tools' descriptors depend on nothing but the set served
// ([Descriptors]), so a deferred list is the same for every session and
// transport. search_tools and describe_tools answer from the set in force
// and its search index ([Tools.Index]), which holds only the tools MCP
// clients may call: a denied, excluded or hidden tool is never found,
// described or suggested.
//
// The package deliberately never runs a tool, nor decides whether the list
// is deferred, nor keeps a call's record. An executor reads the tool's
// name and arguments from its own arguments and hands them to the server's
// call path ([Config.Run]), so a deferred call takes exactly the path of a
// direct one: the same lookup, validation, gate, slot, run, result and log
// line. The read-only executor's refusal of a tool that is not read-only
// is decided here ([Executor.Check]) and applied by that call path, before
// the call is validated.
package discovery
