from playsite.cli import main

main()
