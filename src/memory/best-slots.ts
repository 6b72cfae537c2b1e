/** A slot and its score (BM25 in the store's search). */
export type ScoredSlot = { slot: number; score: number };

/** Is (scoreA, slotA) ranked above (scoreB, slotB)? Higher score; ties: lower slot, so results are stable. */
function ranksAbove(scoreA: number, slotA: number, scoreB: number, slotB: number): boolean {
  return scoreA > scoreB || (scoreA === scoreB && slotA < slotB);
}

/**
 * The `capacity` best slots of those offered (higher score first, ties: lower slot), kept in a
 * min-heap whose root is the worst kept one: O(log capacity) per offer that gets in, one
 * comparison for the many that do not. Slots may be offered in any order.
 */
export class BestSlots {
  private readonly capacity: number;
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** A score below this cannot get in (-Infinity until `capacity` slots are kept): a cheap test before `offer`. */
  get floor(): number {
    return this.slots.length < this.capacity ? Number.NEGATIVE_INFINITY : this.scores[0];
  }

  offer(slot: number, score: number): void {
    const { slots, scores } = this;
    if (slots.length < this.capacity) {
      slots.push(slot);
      scores.push(score);
      this.siftUp(slots.length - 1);
    } else if (this.capacity > 0 && ranksAbove(score, slot, scores[0], slots[0])) {
      slots[0] = slot;
      scores[0] = score;
      this.siftDown(0);
    }
  }

  /** The kept slots, best first. */
  ranked(): ScoredSlot[] {
    return this.slots.map((slot, i) => ({ slot, score: this.scores[i] })).sort((a, b) => (ranksAbove(a.score, a.slot, b.score, b.slot) ? -1 : 1));
  }

  private siftUp(i: number): void {
    const { slots, scores } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!ranksAbove(scores[parent], slots[parent], scores[i], slots[i])) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const { slots, scores } = this;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < slots.length && ranksAbove(scores[worst], slots[worst], scores[left], slots[left])) worst = left;
      if (right < slots.length && ranksAbove(scores[worst], slots[worst], scores[right], slots[right])) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    const { slots, scores } = this;
    const slot = slots[a];
    slots[a] = slots[b];
    slots[b] = slot;
    const score = scores[a];
    scores[a] = scores[b];
    scores[b] = score;
  }
}
