/** Placeholder until core exports the universal model. */
export function UniversalModel() {
  return <p>The universal model view is coming.</p>;
}
