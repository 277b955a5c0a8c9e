// @jsxRuntime automatic
// @jsxImportSource hono/jsx
import { graphlib, layout } from '@dagrejs/dagre';

export interface GraphNode {
  id: string;
  label: string;
  href: string;
  root?: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  label: string;
}

const NODE_W = 220;
const NODE_H = 42;
const MAX_LABEL = 30;

/** A label of at most MAX_LABEL characters, counted as code points so an emoji is never cut in half. */
export function shorten(text: string): string {
  const chars = Array.from(text);
  return chars.length > MAX_LABEL ? `${chars.slice(0, MAX_LABEL - 1).join('')}…` : text;
}

/**
 * The impact graph as SVG, laid out on the server by dagre (ranks, order, edge routes and label places are
 * its): every node a link to its item, every edge labelled by its link type. Text goes in as text nodes.
 */
export function ImpactGraph(props: { nodes: GraphNode[]; edges: GraphEdge[]; title: string }) {
  const g = new graphlib.Graph({ multigraph: true });
  // The graph is a BFS tree (one via per item): longest-path ranks it as well as network simplex, in half the time.
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 70, marginx: 12, marginy: 12, ranker: 'longest-path' });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of props.nodes) g.setNode(node.id, { width: NODE_W, height: NODE_H });
  props.edges.forEach((edge, i) => {
    g.setEdge(edge.from, edge.to, { label: edge.label, width: edge.label.length * 7, height: 14, labelpos: 'c' }, `e${i}`);
  });
  layout(g);
  const size = g.graph() as { width?: number; height?: number };
  const width = Math.ceil(size.width ?? NODE_W);
  const height = Math.ceil(size.height ?? NODE_H);
  return (
    <svg xmlns="http://www.w3.org/2000/svg" width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-labelledby="graph-title">
      <title id="graph-title">{props.title}</title>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" />
        </marker>
      </defs>
      {props.edges.map((edge, i) => {
        const laid = g.edge({ v: edge.from, w: edge.to, name: `e${i}` }) as { points?: { x: number; y: number }[]; x?: number; y?: number };
        const points = laid.points ?? [];
        const d = points.map((p, j) => `${j === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
        return (
          <g class="edge">
            <path d={d} marker-end="url(#arrow)" />
            <text x={(laid.x ?? 0).toFixed(1)} y={(laid.y ?? 0).toFixed(1)} text-anchor="middle" dominant-baseline="middle">
              {edge.label}
            </text>
          </g>
        );
      })}
      {props.nodes.map((node) => {
        const laid = g.node(node.id) as { x: number; y: number };
        const x = laid.x - NODE_W / 2;
        const y = laid.y - NODE_H / 2;
        return (
          <a href={node.href} class={node.root ? 'node root' : 'node'}>
            <rect x={x.toFixed(1)} y={y.toFixed(1)} width={NODE_W} height={NODE_H} rx="6" />
            <text x={laid.x.toFixed(1)} y={laid.y.toFixed(1)} text-anchor="middle" dominant-baseline="middle">
              {shorten(node.label)}
            </text>
          </a>
        );
      })}
    </svg>
  );
}
