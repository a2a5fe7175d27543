/**
 * Whether each folder on the path of a manifest entry is a real folder of
 * DEST: not a symbolic link (nor anything else) and held by a real folder
 * itself. `lstat` does not follow the last component of a path, but it does
 * follow links among the folders above it; walking a tree in manifest order
 * (§9.6: depth-first, each folder followed by what it holds) and examining
 * each folder with lstat as the walk descends closes that gap, holding only
 * the folders of the current path.
 */
export class FolderChain {
  private readonly stack: Array<{ path: string; real: boolean }> = [];

  /**
   * Whether the folder holding entry `p` is a real folder of DEST, as are
   * all above it (DEST itself is). Call with entries in manifest order.
   */
  parentReal(p: string): boolean {
    let top = this.stack[this.stack.length - 1];
    while (top && !(p.length > top.path.length && p.startsWith(top.path) && p[top.path.length] === '/')) {
      this.stack.pop();
      top = this.stack[this.stack.length - 1];
    }
    return top ? top.real : true;
  }

  /** Records folder `p` (just examined after parentReal(p)): whether it is a real folder of DEST. */
  enter(p: string, real: boolean): void {
    this.stack.push({ path: p, real });
  }
}
