/** The universal model from @ojskit/core: each OJS state's name elsewhere, the transitions each system lacks, and its behaviours ojskit has or declines. */
import { JOB_STATES } from '@ojskit/core';
import { BORROWED_BEHAVIOURS, TRANSITIONS, UNIVERSAL_MODEL, transitionSupport } from '@ojskit/core/lifecycle';
import { useState } from 'react';

export function UniversalModel() {
  const [systemId, setSystemId] = useState(UNIVERSAL_MODEL[0]!.id);
  const system = UNIVERSAL_MODEL.find((s) => s.id === systemId)!;
  const rows = TRANSITIONS.map((t) => ({ t, support: transitionSupport(system, t) }));
  const behaviours = BORROWED_BEHAVIOURS.filter((b) => b.systems.includes(system.id));
  return (
    <section aria-labelledby="model-title" className="model">
      <h2 id="model-title">The universal model</h2>
      <p className="hint">Each OJS state's name in other job systems and designs (— where there is none). Data from @ojskit/core.</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="States in other job systems">
        <table data-testid="universal-model">
          <thead>
            <tr>
              <th scope="col">OJS</th>
              {UNIVERSAL_MODEL.map((s) => (
                <th scope="col" key={s.id}>
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {JOB_STATES.map((state) => (
              <tr key={state}>
                <th scope="row">{state}</th>
                {UNIVERSAL_MODEL.map((s) => (
                  <td key={s.id} className={s.states[state] === null ? 'missing' : undefined}>
                    {s.states[state] ?? '—'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <label>
        Transitions in{' '}
        <select value={systemId} onChange={(e) => setSystemId(e.target.value)}>
          {UNIVERSAL_MODEL.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">{system.scope}</p>
      <ul>
        {system.notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
      <table data-testid="model-transitions">
        <thead>
          <tr>
            <th scope="col">rule</th>
            <th scope="col">OJS move</th>
            <th scope="col">trigger</th>
            <th scope="col">in {system.name}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ t, support }, i) => (
            <tr key={i} data-support={support}>
              <td>{t.rule}</td>
              <td>
                {t.from ?? 'new'} → {t.to}
              </td>
              <td>{t.trigger}</td>
              <td className={support === 'missing' ? 'missing' : undefined}>
                {support === 'native'
                  ? `${t.from ? system.states[t.from] : 'new'} → ${system.states[t.to]}`
                  : support === 'collapsed'
                    ? `invisible (both are ${system.states[t.to]})`
                    : 'lacking'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {behaviours.length > 0 && (
        <ul data-testid="model-behaviours">
          {behaviours.map((b) => (
            <li key={b.id} data-answer={b.answer}>
              <strong>{b.answer === 'built-in' ? 'ojskit has it' : 'ojskit declines'}:</strong> {b.behaviour} {b.answer === 'built-in' ? b.how : b.why}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
