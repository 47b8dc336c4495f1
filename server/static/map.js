// The board picture (the server's SVG): clicks on hexes, and the player's routes drawn over it.

const SVG_NS = 'http://www.w3.org/2000/svg';

export class BoardMap {
  constructor(container, onHexClick) {
    this.container = container;
    this.svg = null;
    container.addEventListener('click', (event) => {
      const hex = event.target.closest('[data-hex]');
      if (hex && this.svg && this.svg.contains(hex)) onHexClick(hex.dataset.hex);
    });
  }

  show(svgText) {
    this.container.innerHTML = svgText;
    this.svg = this.container.querySelector('svg');
    this.svg.removeAttribute('width');
    this.svg.removeAttribute('height');
    this.overlay = document.createElementNS(SVG_NS, 'g');
    this.overlay.setAttribute('class', 'player-routes');
    this.svg.appendChild(this.overlay);
  }

  // The hex being edited, outlined; on a phone (the sheet covers the lower half) scrolled to a
  // quarter of the screen's height.
  mark(hexId, scroll = false) {
    if (!this.svg) return;
    for (const p of this.svg.querySelectorAll('polygon.hex.selected')) p.classList.remove('selected');
    const polygon = hexId && this.svg.querySelector(`polygon[data-hex="${CSS.escape(hexId)}"]`);
    if (!polygon) return;
    polygon.classList.add('selected');
    polygon.parentNode.appendChild(polygon);  // drawn last among the hexes: its outline on top
    if (scroll) {
      polygon.scrollIntoView({ block: 'center', inline: 'center' });
      window.scrollBy(0, window.innerHeight / 4);
    }
  }

  // Hex ids that hold a stop (city, town or off-board), read from the picture's data-node attributes.
  stopHexes() {
    const out = new Set();
    for (const node of this.svg.querySelectorAll('[data-node]')) out.add(node.dataset.node.split('.')[0]);
    return out;
  }

  centre(hexId) {
    const polygon = this.svg.querySelector(`polygon[data-hex="${CSS.escape(hexId)}"]`);
    const points = polygon.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
    const sum = points.reduce((a, p) => [a[0] + p[0], a[1] + p[1]], [0, 0]);
    return [sum[0] / points.length, sum[1] / points.length];
  }

  // routes: [{train, hexes: [hex ids in click order], colour, active}]
  drawPlayerRoutes(routes) {
    if (!this.svg) return;
    this.overlay.replaceChildren();
    routes.forEach((route, i) => {
      if (!route.hexes.length) return;
      const group = document.createElementNS(SVG_NS, 'g');
      group.setAttribute('transform', `translate(${i * 6} ${i * 6})`);  // shared track stays visible
      this.overlay.appendChild(group);
      const points = route.hexes.map((h) => this.centre(h).join(',')).join(' ');
      const line = document.createElementNS(SVG_NS, 'polyline');
      line.setAttribute('points', points);
      line.setAttribute('class', route.active ? 'player-route active' : 'player-route');
      line.setAttribute('stroke', route.colour);
      line.dataset.train = route.train;
      group.appendChild(line);
      for (const h of route.hexes) {
        const [x, y] = this.centre(h);
        const dot = document.createElementNS(SVG_NS, 'circle');
        Object.entries({ cx: x, cy: y, r: 7, fill: route.colour, class: 'player-stop' })
          .forEach(([k, v]) => dot.setAttribute(k, v));
        group.appendChild(dot);
      }
    });
  }
}
