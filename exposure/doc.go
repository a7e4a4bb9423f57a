// Package exposure is the tool model of fisk-mcp: the Tool contract and the
// narrow capability interfaces consumers consult, tag resolution, selection
// filters, names and collisions, and the immutable ToolSet a server publishes.
//
// # The call contract
//
// A tool does not run itself. [Tool.Prepare] validates a call's input and
// turns it into one immutable [Call]: the argument vector (binary first), the
// arguments an approval binds, and how to run it. A command tool's Call
// carries the [execrunner.Command] (path and argv) that the serving surface
// runs under its own environment, timeout, kill grace, redaction and
// progress; an in-process tool's Call carries the function that produces its
// JSON. Validation and rendering happen in Prepare and nowhere else, so what
// a person approves, what is logged and what runs are one value.
//
// Before running a Call, the serving surface confirms that the tool is still
// the one it prepared: that the name has the same [ToolSet.Binding] in the
// set in force, and ([Call.CheckBinary]) that a command's binary is still
// the file the tool was loaded from. A binding holds nothing local to a
// host (a command's binary enters it as the SHA-256 of its content), so
// replicas serving the same bytes with the same configuration bind alike;
// the second check is the local one. Load also normalises the timestamps of
// the present that an application writes into its help, so that such
// replicas advertise byte-identical tools. Exposure never calls back into
// the serving surface.
//
// # Capabilities
//
// Kind-specific policy is deliberately not folded into Tool. A consumer that
// needs to know whether a tool is gated asks for [Confirmable]; one that
// needs MCP annotations asks for [BehaviorDescriber]; kind and presentation
// come from [Describer], titles and tags from [Sourced], the other words a
// command answers to, the application's examples of it and the help of
// the groups above it from [Aliased], [Exemplified] and [Grouped] (for a
// search; no client is shown them). Exposure is
// the one exception: it is part of Tool so that the compiler forces every
// new kind of tool to answer it.
//
// The package does not serve, gate or run anything, and knows nothing of
// MCP: it describes tools and prepares their calls.
package exposure
