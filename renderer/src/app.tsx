/** The desk's root component. Screens arrive with the renderer issue. */
export function App() {
  return (
    <main>
      <h1>Signing Batch Desk</h1>
    </main>
  );
}
