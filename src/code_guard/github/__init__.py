"""The GitHub Action: read the event, fetch the pull request, publish the review.

One module per step, each explainable in one sentence:

- ``event``: the webhook payload the runner hands the container, parsed once.
- ``inputs``: the action's ``INPUT_*`` variables and the runner's environment, parsed once.
- ``retry``: how PyGithub retries 5xx answers and secondary rate limits.
- ``client``: every REST call the action makes, with PyGithub errors wrapped.
- ``anchors``: which findings GitHub will accept as inline comments.
- ``comments``: the markdown body of one inline comment.
- ``bisect``: finding the comments GitHub rejects with 422.
- ``publish``: one review, one summary comment, or annotations when the token cannot write.
- ``workflow``: workflow commands, ``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY``.
- ``summary``: the job summary and the summary comment, within GitHub's size limits.
- ``action``: the container's entrypoint, the one place that turns errors into exit codes.
"""
