/** Small React hooks shared by the views. */
import { useEffect, useRef, useState } from 'react';

/** Re-renders at most every `intervalMs` while `read()` changes: how views follow a fast-moving model. */
export function usePolled<T>(read: () => T, intervalMs = 150): T {
  const [value, setValue] = useState(read);
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => {
    const timer = setInterval(() => {
      const next = latest.current();
      setValue((old) => (Object.is(old, next) ? old : next));
    }, intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return value;
}

/** True when the user asked the system for less motion. */
export function useReducedMotion(): boolean {
  const query = '(prefers-reduced-motion: reduce)';
  const [reduced, setReduced] = useState(() => typeof window !== 'undefined' && window.matchMedia?.(query).matches === true);
  useEffect(() => {
    const media = window.matchMedia?.(query);
    if (!media) return;
    const onChange = (): void => setReduced(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return reduced;
}
