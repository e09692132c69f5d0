/** Handlers and the middleware chain around them. */
import type { JobContext } from './job-context.js';

/** Runs one job; its return value is the job's result. */
export type Handler<Args extends unknown[] = unknown[], Result = unknown> = (ctx: JobContext<Args, Result>) => Result | Promise<Result>;

/**
 * Wraps every handler: call `next()` to run the rest of the chain (it resolves to the handler's result,
 * which the middleware may return as is or replace). Throwing fails the job as a handler error would.
 * @example worker.use(async (ctx, next) => { const t = Date.now(); try { return await next(); } finally { log(ctx.job.type, Date.now() - t); } })
 */
export type Middleware = (ctx: JobContext, next: () => Promise<unknown>) => unknown;

/** Composes middleware (outermost first) around a handler. */
export function compose(middleware: readonly Middleware[], handler: Handler): (ctx: JobContext) => Promise<unknown> {
  return (ctx) => {
    let last = -1;
    const dispatch = async (i: number): Promise<unknown> => {
      if (i <= last) throw new Error('next() called more than once in a middleware');
      last = i;
      if (i === middleware.length) return handler(ctx);
      return middleware[i]!(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}
