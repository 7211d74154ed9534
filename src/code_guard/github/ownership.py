"""Files the action leaves in the workspace belong to the workspace's owner, not to root.

GitHub runs a Docker action as the image's user, root, with the workspace mounted from the
host. A root-owned SARIF or results file left there breaks a self-hosted runner's next
checkout, which runs as the runner's account and cannot delete it. So every file the action
writes to the workspace is given the uid and gid of the workspace directory itself.

The pull request controls the workspace, so a name the action writes could be a link to a
file elsewhere: ownership is never changed through a link.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def give_to_workspace_owner(path: Path, workspace: Path) -> str | None:
    """Make ``path`` owned like ``workspace``; return a one-line problem, or None when done.

    Only root can give a file away; any other user already writes files as itself, so there
    is nothing to do.
    """
    if os.geteuid() != 0:
        return None
    try:
        owner = workspace.stat()
        current = path.lstat()
        if stat.S_ISLNK(current.st_mode):
            return f"did not give {path.name} to the workspace owner: it is a symbolic link"
        if (current.st_uid, current.st_gid) != (owner.st_uid, owner.st_gid):
            # lchown: were the file swapped for a link since, the link itself would change.
            os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
    except OSError as error:
        return f"could not give {path.name} to the workspace owner: {error.strerror or error}"
    return None
