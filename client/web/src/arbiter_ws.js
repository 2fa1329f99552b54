// The functions the WebAssembly module imports (emcc --js-library): the WebSocket
// transport's open/send/close (client/src/cl_net_ws.c) and the log hook
// (src/web_client.c). Each hands over to the host object lib/arbiter.js installs as
// Module.arbiterHost before any client exists, which owns the sockets.
mergeInto(LibraryManager.library, {
  arb_js_ws_open: function(net, url) { return Module['arbiterHost'].open(net, UTF8ToString(url)); },
  arb_js_ws_send: function(socket, data, len) {
    // slice copies: the socket may keep the bytes after the module reuses its buffer.
    return Module['arbiterHost'].send(socket, HEAPU8.slice(data, data + len));
  },
  arb_js_ws_close: function(socket, code) { Module['arbiterHost'].close(socket, code); },
  arb_js_log: function(
      id, level, message) { Module['arbiterHost'].log(id, level, UTF8ToString(message)); },
});
