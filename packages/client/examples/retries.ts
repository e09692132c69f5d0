/** Retries: a retry policy, transient errors retried, permanent ones (NonRetryableError) dead-lettered. */
import { Client, NonRetryableError, Worker, inProcess } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';

// #region errors
class CardDeclinedError extends NonRetryableError {}
// #endregion errors

/** Stands in for a payment API: the first call for an order times out, card 'x' is declined. */
const calls = new Map<number, number>();
async function chargeCard(orderId: number, card: string): Promise<string> {
  const n = (calls.get(orderId) ?? 0) + 1;
  calls.set(orderId, n);
  if (card === 'x') throw new CardDeclinedError(`card ${card} declined`);
  if (n === 1) throw new Error('gateway timeout');
  return `receipt-${orderId}`;
}

export async function main() {
  const api = inProcess(new MemoryDriver());
  const client = new Client(api);
  const worker = new Worker(api, { queues: ['payments'] });

  // #region handler
  worker.register('payment.charge', async ({ args: [orderId, card], attempt }) => {
    console.log(`charging order ${orderId}, attempt ${attempt}`);
    // A plain Error is retried; a NonRetryableError (or subclass) fails the job for good.
    return chargeCard(orderId as number, card as string);
  });
  worker.start();
  // #endregion handler

  // #region enqueue
  const retry = {
    maxAttempts: 5, // total runs, including the first
    initialInterval: 100, // ms (or an ISO 8601 duration such as 'PT1S'); doubles each time…
    maxInterval: 'PT1M', // …up to a minute
    onExhaustion: 'dead_letter' as const, // keep failed jobs in the dead-letter queue
  };
  const ok = await client.enqueue('payment.charge', [1, 'visa'], { queue: 'payments', retry });
  const declined = await client.enqueue('payment.charge', [2, 'x'], { queue: 'payments', retry });

  const paid = await client.waitFor(ok.id); // completed on attempt 2
  const failed = await client.waitFor(declined.id); // discarded after attempt 1
  console.log(paid.attempt, paid.errors[0]?.message); // 2 'gateway timeout'
  console.log(failed.state, failed.error?.type); // discarded CardDeclinedError
  // #endregion enqueue

  // #region dead-letter
  const { jobs } = await client.deadLetter.list({ queue: 'payments' });
  for (const job of jobs) console.log(job.id, job.error?.message);
  await client.deadLetter.retry(declined.id); // back to 'available' with its attempts reset
  // #endregion dead-letter

  const retried = await client.waitFor(declined.id);
  await worker.close();
  await api.close();
  return { paid, failed, deadLettered: jobs.map((j) => j.id), retried };
}
