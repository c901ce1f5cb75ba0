from margin.tui.cli import main

raise SystemExit(main())
