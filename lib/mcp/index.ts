/** The MCP record/replay proxy's pure core (README.md beside this file). */
export { annotationsOf, toolEffect, type McpToolEffect, type ToolAnnotations } from "./effect";
export {
  isNotification,
  isRequest,
  isResponse,
  parseLine,
  rpcError,
  rpcResult,
  RPC,
  toMessage,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "./jsonrpc";
export { McpRecorder, toolResultData, type AppendEvent } from "./recorder";
export { mcpServers, readMcpRecording, type McpServerRecording } from "./recording";
export { McpReplayer, type AppendNow, type McpAnswer, type McpDivergence, type McpReplayerOptions } from "./replayer";
