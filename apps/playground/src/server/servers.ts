/** The servers the user has added (remembered in localStorage), and the one the page was loaded from. */

export interface ServerEntry {
  /** Base URL (origin plus any path prefix), without `/ojs/v1`. */
  readonly url: string;
  /** Sent as a bearer token when set: servers may require one. */
  readonly apiKey?: string;
}

const STORAGE_KEY = 'ojskit.playground.servers';

/** The server that served the page: the default, always present. */
export function homeServer(): ServerEntry {
  return { url: window.location.origin };
}

export function loadServers(): ServerEntry[] {
  const home = homeServer();
  try {
    const saved = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '[]') as unknown;
    const list = Array.isArray(saved) ? saved.filter((s): s is ServerEntry => typeof s?.url === 'string') : [];
    const homeSaved = list.find((s) => s.url === home.url);
    return [homeSaved ?? home, ...list.filter((s) => s.url !== home.url)];
  } catch {
    return [home];
  }
}

export function saveServers(servers: readonly ServerEntry[]): void {
  window.localStorage.setItem(STORAGE_KEY, JSON.stringify(servers));
}

/** Normalises what a user typed: adds `http://`, strips trailing slashes and `/ojs/v1`. */
export function normaliseUrl(input: string): string {
  const trimmed = input.trim();
  const withScheme = /^https?:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  const url = new URL(withScheme);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\/ojs(\/v1)?$/, '');
}
