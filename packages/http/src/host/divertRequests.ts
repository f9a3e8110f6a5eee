import type { IncomingMessage, Server, ServerResponse } from "node:http"

type Listener = (request: IncomingMessage, response: ServerResponse) => void

/**
 * Whether `take` answers a request itself. `pass` hands it on to the handler it was taken from
 * (Effect's), for a request `take` started on and then left (a read that failed, to be answered
 * in the contract's error shape). Returns false to leave it to that handler at once.
 */
export type Taker = (request: IncomingMessage, response: ServerResponse, pass: () => void) => boolean

export interface Diversion {
  /** What requests are offered to first; none are taken until it is set. */
  take: Taker
}

/**
 * Puts a taker before the `request` listeners attached to `server` from now on (Effect's
 * NodeHttpServer attaches its handler when the router is served, and detaches it on release), so
 * a request the taker answers never reaches them. Listeners put first with prependListener (the
 * host's front) still run before either. `handing` runs on each request as it goes to them.
 */
export const divertRequests = (server: Server, handing: Listener): Diversion => {
  const diversion: Diversion = { take: () => false }
  const wrapped = new WeakMap<Listener, Listener>()
  const on = server.on.bind(server)
  const removeListener = server.removeListener.bind(server)
  const wrap = (listener: Listener): Listener => {
    const handOn = (request: IncomingMessage, response: ServerResponse) => {
      handing(request, response)
      listener(request, response)
    }
    const diverted: Listener = (request, response) => {
      if (!diversion.take(request, response, () => handOn(request, response))) handOn(request, response)
    }
    wrapped.set(listener, diverted)
    return diverted
  }
  const off = (event: string | symbol, listener: (...args: Array<any>) => void) =>
    removeListener(event, event === "request" ? (wrapped.get(listener as Listener) ?? listener) : listener)
  const add = (event: string | symbol, listener: (...args: Array<any>) => void) =>
    event === "request" ? on(event, wrap(listener as Listener)) : on(event as string, listener)
  Object.assign(server, {
    on: add,
    addListener: add,
    off,
    removeListener: off
  })
  return diversion
}
