// Preloaded (node --import) in front of server-everything, whose streamable HTTP mode calls
// app.listen(PORT) with no host, i.e. on every interface: a listen() given a port and no host
// binds 127.0.0.1 instead. Nothing else is changed.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    if (args.length === 1 || typeof args[1] === "function") {
      args.splice(1, 0, "127.0.0.1");
    }
  }
  return listen.apply(this, args);
};
