// Redocly plugin: x-websocket holds the JSON Schemas of a WebSocket operation's client and server events.
export default function websocketEvents() {
  const extend = (types) => ({
    ...types,
    Operation: { ...types.Operation, properties: { ...types.Operation.properties, 'x-websocket': 'XWebSocket' } },
    XWebSocket: { properties: { client: 'Schema', server: 'Schema' }, required: ['client', 'server'] },
  });
  return { id: 'svc-websocket', typeExtension: { oas3: extend } };
}
